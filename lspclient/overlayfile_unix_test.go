//go:build unix

package lspclient

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLeftOverlaysRemoved checks that a client's start removes the
// overlay files of servers killed before their Close (they name
// workspace paths), and only those: this user's regular files whose pid
// no longer runs.
func TestLeftOverlaysRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(ended.Process.Pid)
	live := strconv.Itoa(os.Getppid())
	files := map[string]bool{ // name: kept
		overlayPrefix + dead + "-123.json":                    true,
		overlayPrefix + dead + "-456.json":                    true,
		overlayPrefix + live + "-789.json":                    true,
		overlayPrefix + "123456.json":                         true, // an older version's: writer unknown
		"other-" + dead + "-1.json":                           true,
		overlayPrefix + dead + "-link.json":                   true, // a link, not a file of ours
		overlayPrefix + strconv.Itoa(os.Getpid()) + "-0.json": true,
	}
	for name := range files {
		p := filepath.Join(tmp, name)
		var err error
		if strings.HasSuffix(name, "-link.json") {
			err = os.Symlink(filepath.Join(tmp, overlayPrefix+live+"-789.json"), p)
		} else {
			err = os.WriteFile(p, []byte(`{"Replace":{"/home/u/secret/x.go":""}}`), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	files[overlayPrefix+dead+"-123.json"] = false
	files[overlayPrefix+dead+"-456.json"] = false

	c := startWith(t, Options{Root: exampleRoot(t)})
	c.docs.mu.Lock()
	own := filepath.Base(c.docs.overlay)
	c.docs.mu.Unlock()
	if want := overlayPrefix + strconv.Itoa(os.Getpid()) + "-"; !strings.HasPrefix(own, want) {
		t.Errorf("the client's overlay file is %q; want a name starting %q", own, want)
	}
	got := map[string]bool{}
	for name := range files {
		_, err := os.Lstat(filepath.Join(tmp, name))
		got[name] = err == nil
	}
	if diff := cmp.Diff(files, got); diff != "" {
		t.Errorf("overlay files kept after the start (-want +got):\n%s", diff)
	}
}
