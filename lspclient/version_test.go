package lspclient

import (
	"context"
	"debug/buildinfo"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/modfile"
)

func TestParseGoplsBuild(t *testing.T) {
	tests := []struct {
		name, serverInfo string
		want             GoplsBuild
	}{
		{"a release", `{"GoVersion":"go1.27.3","Path":"golang.org/x/tools/gopls","Main":{"Path":"golang.org/x/tools/gopls","Version":"v0.24.0"},"Version":"v0.24.0"}`,
			GoplsBuild{Version: "v0.24.0", GoVersion: "go1.27.3"}},
		{"a version set at link time", `{"GoVersion":"go1.26.8","Main":{"Version":"(devel)"},"Version":"v0.23.1-custom"}`,
			GoplsBuild{Version: "v0.23.1-custom", GoVersion: "go1.26.8"}},
		{"built from a checkout", `{"GoVersion":"go1.27.3 X:nodwarf5","Main":{"Version":"(devel)"},"Version":"(devel)"}`,
			GoplsBuild{Version: "(devel)", GoVersion: "go1.27.3"}},
		{"built by a Go from a checkout", `{"GoVersion":"devel go1.28-0123456789 Tue Dec 1 10:00:00 2026 +0000","Main":{"Version":"v0.24.0"}}`,
			GoplsBuild{Version: "v0.24.0"}},
		{"no Go version", `{"Main":{"Version":"v0.22.0"}}`, GoplsBuild{Version: "v0.22.0"}},
		{"not JSON", "v0.22.1", GoplsBuild{Version: "v0.22.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, parseGoplsBuild(tt.serverInfo)); diff != "" {
				t.Errorf("parseGoplsBuild (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckGopls(t *testing.T) {
	for v, supported := range map[string]bool{
		"v0.24.0": true, "v0.22.0": true, "v0.22.0-pre.1": true, "v0.25.3": true, "v1.0.0": true,
		"(devel)": true, "": true, "v0.24.1-0.20251010120000-abcdefabcdef": true,
		"v0.21.1": false, "v0.20.0": false, "v0.9.5": false, "v0.21.1-0.20250601000000-abcdefabcdef": false,
	} {
		err := checkGopls(v)
		var old *UnsupportedGoplsError
		if got := !errors.As(err, &old); got != supported {
			t.Errorf("checkGopls(%q) = %v; want supported %v", v, err, supported)
		}
	}
}

// The version every remedy names is the one go.mod pins.
func TestPinnedGopls(t *testing.T) {
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == "golang.org/x/tools/gopls" {
			if r.Mod.Version != PinnedGopls {
				t.Errorf("go.mod pins gopls %s, PinnedGopls is %s", r.Mod.Version, PinnedGopls)
			}
			return
		}
	}
	t.Error("go.mod does not require golang.org/x/tools/gopls")
}

// What gopls says of its build at initialize is what its binary records.
func TestGoplsBuild(t *testing.T) {
	gopls := goplsPath(t)
	info, err := buildinfo.ReadFile(gopls)
	if err != nil {
		t.Fatal(err)
	}
	c := startWith(t, Options{Gopls: gopls, Root: exampleRoot(t)})
	want := GoplsBuild{Version: info.Main.Version, GoVersion: info.GoVersion}
	if diff := cmp.Diff(want, c.GoplsBuild()); diff != "" {
		t.Errorf("GoplsBuild (-binary's build info +gopls's serverInfo):\n%s", diff)
	}
}

// A gopls older than OldestGopls is refused at start, with the sentence
// that names its version and the remedy. The gopls is a real v0.21.1,
// which make builds as bin/gopls-v0.21.1 (with the Go in use).
func TestOldGoplsRefused(t *testing.T) {
	old := goplsBinary(t, "gopls-v0.21.1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{Gopls: old, Root: exampleRoot(t)})
	if err == nil {
		c.Close()
		t.Fatal("gopls v0.21.1 was started; want it refused")
	}
	want := "gopls v0.21.1 is older than v0.22, the oldest goplsmcp supports: install gopls " + PinnedGopls + " (go install golang.org/x/tools/gopls@" + PinnedGopls + ") or pass --gopls"
	var unsupported *UnsupportedGoplsError
	if !errors.As(err, &unsupported) || err.Error() != want {
		t.Errorf("Start = %v; want %q", err, want)
	}
}

// goplsBinary returns the absolute path of bin/NAME, one of the gopls
// releases other than the pinned one that make builds for the tests (see
// the Makefile's compat goplses). A test without it is skipped, saying
// how to build it.
func goplsBinary(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is missing: make bin/%s builds it", p, name)
	}
	return p
}
