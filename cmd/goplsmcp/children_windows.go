package main

import "github.com/goplsmcp/goplsmcp/lspclient"

// bindChildren puts goplsmcp in a job object that kills every process in
// it when its last handle closes. goplsmcp holds the only handle, and the
// processes it starts (gopls, gopls vulncheck, and theirs) join the job, so
// they all end when goplsmcp ends, even killed. It ties goplsmcp's
// children to goplsmcp, never goplsmcp to its parent: a stdio session
// ends when its stdin does.
func bindChildren() { lspclient.JoinKillOnCloseJob() }
