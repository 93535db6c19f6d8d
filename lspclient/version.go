package lspclient

import (
	"encoding/json"
	"fmt"
	"go/version"
	"strings"

	"golang.org/x/mod/semver"
)

// Which gopls goplsmcp works with. Both are read from what gopls says of
// itself when it answers initialize: its serverInfo.version is the JSON of
// its build information (the module version, and the Go that built it),
// so the gopls that answers — whatever file, wrapper script or --remote
// daemon it is — is the one judged, and go_workspace reports the same
// reading.
const (
	// PinnedGopls is the gopls goplsmcp is built and tested with (go.mod's
	// tool requirement), the one every remedy names.
	PinnedGopls = "v0.24.0"
	// OldestGopls is the oldest gopls release goplsmcp works with: older
	// ones lack requests and settings it relies on.
	OldestGopls = "v0.22"
)

// GoplsBuild is what a gopls says of its build.
type GoplsBuild struct {
	// Version is its module version, e.g. "v0.24.0"; for a gopls built
	// from a checkout, what it reports instead (such as "(devel)").
	Version string
	// GoVersion is the Go that built it, e.g. "go1.27.3"; "" when it did
	// not say.
	GoVersion string
}

// parseGoplsBuild reads gopls's serverInfo version, the JSON rendering of
// its build information (gopls's debug.ServerVersion: the runtime's
// BuildInfo and a Version). Anything else is taken as the version itself.
func parseGoplsBuild(v string) GoplsBuild {
	var info struct {
		GoVersion string
		Main      struct{ Version string }
		Version   string
	}
	if json.Unmarshal([]byte(v), &info) != nil {
		return GoplsBuild{Version: v}
	}
	b := GoplsBuild{Version: info.Version, GoVersion: info.GoVersion}
	// The module's version first: Version may be overridden at link time.
	if semver.IsValid(info.Main.Version) || b.Version == "" {
		b.Version = info.Main.Version
	}
	// A Go built with experiments says so after a space (go1.27.3
	// X:nodwarf5); one built from a checkout is no release (devel ...).
	b.GoVersion, _, _ = strings.Cut(b.GoVersion, " ")
	if !version.IsValid(b.GoVersion) {
		b.GoVersion = ""
	}
	return b
}

// UnsupportedGoplsError is the error [Start] returns for a gopls older
// than [OldestGopls].
type UnsupportedGoplsError struct {
	Version string // the version gopls reported
}

func (e *UnsupportedGoplsError) Error() string {
	return fmt.Sprintf("gopls %s is older than %s, the oldest goplsmcp supports: install gopls %s (go install golang.org/x/tools/gopls@%s) or pass --gopls",
		e.Version, OldestGopls, PinnedGopls, PinnedGopls)
}

// checkGopls returns an [UnsupportedGoplsError] for a gopls version older
// than [OldestGopls]. A version that is no release (a gopls built from a
// checkout says "(devel)") is taken as supported: nothing says it is old.
// Pre-releases count as their release (v0.22.0-pre.1 is v0.22).
func checkGopls(v string) error {
	if semver.IsValid(v) && semver.Compare(semver.MajorMinor(v), OldestGopls) < 0 {
		return &UnsupportedGoplsError{Version: v}
	}
	return nil
}
