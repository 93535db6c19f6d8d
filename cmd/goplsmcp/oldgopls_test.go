//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// TestOldGopls: a gopls older than v0.22 is refused at start with the
// sentence that names its version and the remedy, exit status 2 as for a
// missing gopls, whether the session serves alone or through a shared
// daemon (whose refusal makes the session try a gopls of its own, which
// it refuses too). The gopls is a real v0.21.1, which make builds. Linux
// only, as the shared daemon's other tests (share_test.go).
func TestOldGopls(t *testing.T) {
	old, err := filepath.Abs("../../bin/gopls-v0.21.1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Skipf("%s is missing: make bin/gopls-v0.21.1 builds it", old)
	}
	pin := lspclient.PinnedGopls
	want := "goplsmcp: gopls v0.21.1 is older than v0.22, the oldest goplsmcp supports: install gopls " + pin + " (go install golang.org/x/tools/gopls@" + pin + ") or pass --gopls\n"
	for _, share := range []string{"off", "auto"} {
		t.Run("share="+share, func(t *testing.T) {
			sh := newShared(t)
			cmd := exec.Command(binary, "--gopls", old, "--root", exampleRoot(t), "--share", share)
			cmd.Env = sh.env
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.Output()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("goplsmcp with gopls v0.21.1: %v, stdout %q; want exit status 2", err, out)
			}
			stderr := string(ee.Stderr)
			if !strings.HasSuffix(stderr, want) {
				t.Errorf("stderr:\n%s\nwant it to end with:\n%s", stderr, want)
			}
		})
	}
}
