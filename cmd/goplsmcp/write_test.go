//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestApplyOversized renames across the example module with a result
// limit far smaller than the diff. Without apply nothing is written and
// the call fails, saying how to narrow it; with apply every file is
// written and the call succeeds, with a bounded summary in place of the
// diff: a write that happened is never reported as an error.
func TestApplyOversized(t *testing.T) {
	root := exampleRoot(t)
	before := snapshotDir(t, root)
	args := []string{"call", "--root", root, "--gopls", goplsPath(t), "--allow-write", "--max-result-bytes", "2048", "go_rename_symbol"}
	stdout, stderr, code := runOnce(t, "", append(args, `{"file":"shapes/shapes.go","symbol":"Shape","new_name":"Figure"}`)...)
	if code != 1 || !strings.Contains(stderr, "over the limit of 2048") {
		t.Errorf("the proposal over the limit: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if diff := cmp.Diff(before, snapshotDir(t, root)); diff != "" {
		t.Errorf("a proposal over the limit changed files (-before +after):\n%s", diff)
	}
	stdout, stderr, code = runOnce(t, "", append(args, `{"file":"shapes/shapes.go","symbol":"Shape","new_name":"Figure","apply":true}`)...)
	if code != 0 || !strings.HasPrefix(stdout, "applied: ") || !strings.Contains(stdout, "too large for the answer") {
		t.Errorf("the apply over the limit: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"main.go", "report/report.go", "shapes/shapes.go"} {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil || !strings.Contains(string(data), "Figure") {
			t.Errorf("%s after the apply: %v\n%s", f, err, data)
		}
	}
	if len(stdout) > 2048 {
		t.Errorf("the answer has %d bytes, over the limit", len(stdout))
	}
}

// TestApplyKeepsFile renames with apply: true across files with an
// unusual mode, another owner (when the test runs as root: the fixture is
// given to another user) and a hard link: each keeps its mode and owner,
// the hard link still names the same, rewritten file, and no temporary
// file is left.
func TestApplyKeepsFile(t *testing.T) {
	root := exampleRoot(t)
	const uid, gid = 4242, 4343
	asRoot := os.Geteuid() == 0
	files := []string{"main.go", "report/report.go", "shapes/shapes.go"}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if asRoot {
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	shapes := filepath.Join(root, "shapes", "shapes.go")
	if err := os.Chmod(shapes, 0o640); err != nil {
		t.Fatal(err)
	}
	report, link := filepath.Join(root, "report", "report.go"), filepath.Join(root, "report.go.bak")
	if err := os.Link(report, link); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runOnce(t, "", "call", "--root", root, "--gopls", goplsPath(t), "--allow-write", "go_rename_symbol",
		`{"file":"shapes/shapes.go","symbol":"Shape","new_name":"Figure","apply":true}`)
	if code != 0 || !strings.HasPrefix(stdout, "applied: ") {
		t.Fatalf("the apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if asRoot && (st.Uid != uid || st.Gid != gid) {
			t.Errorf("%s is owned by %d:%d after the write, want %d:%d", f, st.Uid, st.Gid, uid, gid)
		}
	}
	if fi, err := os.Stat(shapes); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("shapes.go's mode after the write: %v %v", fi.Mode(), err)
	}
	a, errA := os.Stat(report)
	b, errB := os.Stat(link)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("report.go and its hard link are no longer one file: %v %v", errA, errB)
	}
	if data, _ := os.ReadFile(link); !strings.Contains(string(data), "Figure") {
		t.Errorf("the hard link does not see the write:\n%s", data)
	}
	for p := range snapshotDir(t, root) {
		if strings.Contains(filepath.Base(p), ".goplsmcp-") {
			t.Errorf("a temporary file is left: %s", p)
		}
	}
	if !asRoot {
		t.Log("not root: owners not checked")
	}
}
