package edit_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
