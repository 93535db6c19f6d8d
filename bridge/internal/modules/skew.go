package modules

import (
	"fmt"
	"go/version"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"golang.org/x/mod/semver"
)

// A gopls parses and type-checks with the rules and the standard library
// of the Go that built it: built by a Go older than the code it reads, it
// reports newer syntax and APIs as errors (method must have no type
// parameters (syntax), unknown field in struct literal, undefined:
// strings.CutLast) on code that compiles. Skew says so.

// Skew returns the sentence that says the gopls answering was built by a
// Go older than the workspace's newest go line (of a go.mod or go.work)
// or than the Go its go command runs, and how to rebuild it; "" when it
// was not, or nothing says which Go built it.
func (m *Modules) Skew() string {
	build := m.c.Client.GoplsBuild()
	if build.GoVersion == "" {
		return ""
	}
	var newest string
	for _, mod := range m.OnDisk() {
		for _, v := range []string{mod.GoVersion, mod.WorkGoVersion} {
			if version.IsValid("go"+v) && (newest == "" || version.Compare("go"+v, "go"+newest) > 0) {
				newest = v
			}
		}
	}
	where := func() string {
		if m.c.Env.MissingToolchain() == "" && lspclient.LookupEnv(m.c.Client.OfflineGoEnv(), "GOTOOLCHAIN") != "local" {
			return "named by GOTOOLCHAIN"
		}
		return "on PATH"
	}
	return skewSentence(build, newest, m.c.GoVersion(), where)
}

// skewSentence is Skew's sentence for gopls, given the workspace's newest
// go line (such as "1.27"), the version of the Go its go command runs
// (such as "go1.27.3") and where that Go comes from (asked only when the
// sentence names it: it reads the go env file); "" when gopls's Go is
// older than neither. Versions are compared as languages (go1.27.0 and
// go1.27.3 are the same Go 1.27): a gopls knows a language, not a patch
// release. The remedy builds the pinned gopls (or the one answering, if
// newer) with that Go, or with the workspace's when the go command's is
// older too.
func skewSentence(gopls lspclient.GoplsBuild, workspace, goCmd string, where func() string) string {
	built := version.Lang(gopls.GoVersion)
	newer := func(v string) bool { return version.IsValid(v) && version.Compare(version.Lang(v), built) > 0 }
	var than []string
	if newer("go" + workspace) {
		than = append(than, "this workspace's go "+workspace)
	}
	if newer(goCmd) {
		than = append(than, goCmd+" "+where())
	}
	if len(than) == 0 {
		return ""
	}
	install := lspclient.PinnedGopls
	if semver.Compare(gopls.Version, install) > 0 {
		install = gopls.Version
	}
	command := "go install golang.org/x/tools/gopls@" + install
	if newer("go"+workspace) && version.Compare(version.Lang(goCmd), version.Lang("go"+workspace)) < 0 {
		// The go command's Go is older than the workspace too: name one
		// that is not (go1.27 is a language; its first release go1.27.0).
		toolchain := "go" + workspace
		if version.Lang(toolchain) == toolchain {
			toolchain += ".0"
		}
		command = "GOTOOLCHAIN=" + toolchain + " " + command
	}
	return fmt.Sprintf("gopls %s was built with %s, older than %s: it reports newer syntax and APIs as errors; rebuild it with the newer Go (%s)",
		gopls.Version, gopls.GoVersion, strings.Join(than, " and than "), command)
}
