package fixtureguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiff checks that every kind of change to a fixture tree is seen:
// content, mode, an added or removed file, a retargeted link, and that
// an excepted path is ignored.
func TestDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/one.go", "package a\n")
	write("a/two.go", "package a\n")
	write("gone.go", "package gone\n")
	write("golden/x.txt", "old\n")
	if err := os.Symlink("a/one.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	before, err := Snapshot(dir, "golden")
	if err != nil {
		t.Fatal(err)
	}
	if same := Diff(before, before); len(same) != 0 {
		t.Fatalf("a tree differs from itself: %v", same)
	}

	write("a/one.go", "package a // changed\n")
	if err := os.Chmod(filepath.Join(dir, "a", "two.go"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gone.go")); err != nil {
		t.Fatal(err)
	}
	write("a/new.go", "package a\n")
	write("golden/x.txt", "new\n")
	os.Remove(filepath.Join(dir, "link"))
	if err := os.Symlink("a/two.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	after, err := Snapshot(dir, "golden")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range Diff(before, after) {
		what, _, _ := strings.Cut(line, " (") // without the details
		got = append(got, what)
	}
	want := []string{"a/new.go: added", "a/one.go: changed", "a/two.go: changed", "gone.go: removed", "link: changed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes seen (-want +got):\n%s", diff)
	}
}
