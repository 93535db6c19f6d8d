package main

import "github.com/goplsmcp/goplsmcp/lspclient"

// dieWithParent puts goplsmcp in a job object that kills every process in
// it when its last handle closes. goplsmcp holds the only handle, and the
// processes it starts (gopls, gopls vulncheck, and theirs) join the job, so
// they all end when goplsmcp ends, even killed. Windows has no
// parent-death signal: the end of stdin ends the server when its client
// goes.
func dieWithParent() { lspclient.JoinKillOnCloseJob() }
