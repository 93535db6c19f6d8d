package edit_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// TestConcurrentApplies: two applies computed from the same bytes of one
// file, run at once many times (two sessions renaming in one file): each
// time exactly one is written and the other refused, the file holds the
// winner's content whole, and no temporary file is left.
func TestConcurrentApplies(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "a.go")
	w := &edit.Writer{Gate: place.New(root, nil)}
	for round := range 50 {
		before := fmt.Sprintf("package a\n\n// round %d\n", round)
		if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		afters := []string{before + "var X = 1\n", before + "var Y = 2\n"}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				_, errs[i] = w.Write([]edit.File{{Path: path, Name: "a.go", Sum: sha256.Sum256([]byte(before)), After: afters[i]}})
			})
		}
		wg.Wait()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case errs[0] == nil && errs[1] != nil && string(got) == afters[0]:
		case errs[1] == nil && errs[0] != nil && string(got) == afters[1]:
		default:
			t.Fatalf("round %d: errors %v, %v; the file holds:\n%s", round, errs[0], errs[1], got)
		}
		for _, err := range errs {
			if err != nil && !strings.Contains(err.Error(), "a.go on disk is not the text the edits were computed for") {
				t.Errorf("round %d: the refusal does not name the file: %v", round, err)
			}
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("files left beside a.go: %v", entries)
	}
}

// TestLateChangeRestores: an editor saves the last file of a change after
// every file passed its first check and before that file is replaced. The
// last check each file gets right before its replacement finds the save:
// the files already written get their bytes back (a file written in place
// for its hard link, and a created file removed, too), the save is kept,
// and the error names the file.
func TestLateChangeRestores(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	orig := map[string]string{
		"a.go": "package a\n\nvar A = 1\n",
		"b.go": "package a\n\nvar B = 1\n",
		"z.go": "package a\n\nvar Z = 1\n",
	}
	for name, text := range orig {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "b.go"), filepath.Join(root, "b2.go")); err != nil {
		t.Fatal(err)
	}
	const save = "// saved by an editor\npackage a\n\nvar Z = 1\n"
	w := &edit.Writer{Gate: place.New(root, nil), AfterCheck: func() {
		if err := os.WriteFile(filepath.Join(root, "z.go"), []byte(save), 0o644); err != nil {
			t.Error(err)
		}
	}}
	file := func(name, after string) edit.File {
		return edit.File{Path: filepath.Join(root, name), Name: name, Sum: sha256.Sum256([]byte(orig[name])), After: after}
	}
	written, err := w.Write([]edit.File{
		file("a.go", "package a\n\nvar A = 2\n"),
		file("b.go", "package a\n\nvar B = 2\n"),
		{Path: filepath.Join(root, "n.go"), Name: "n.go", Created: true, After: "package a\n"},
		file("z.go", "package a\n\nvar Z = 2\n"),
	})
	if err == nil || !strings.Contains(err.Error(), "z.go on disk is not the text the edits were computed for") || len(written) != 0 {
		t.Fatalf("Write = %v, %v; want z.go refused and nothing left written", written, err)
	}
	want := map[string]string{"a.go": orig["a.go"], "b.go": orig["b.go"], "b2.go": orig["b.go"], "z.go": save}
	got := map[string]string{}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(root, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files after the refused write (-want +got):\n%s", diff)
	}
	fb, _ := os.Stat(filepath.Join(root, "b.go"))
	fb2, _ := os.Stat(filepath.Join(root, "b2.go"))
	if !os.SameFile(fb, fb2) {
		t.Error("b.go and b2.go are no longer one file")
	}
}
