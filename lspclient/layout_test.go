package lspclient

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLayoutChanges checks which changes move the layout epoch: a go.mod,
// go.work, go.sum or vendor manifest, a directory, lost events or one gone;
// not a Go file's edit, nor an editor's temporary file, which every
// diagnosis after an edit would otherwise pay for by asking gopls for its
// builds again.
func TestLayoutChanges(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.go", "a.go.tmp", "4913"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name     string
		paths    []string
		dirsGone []string
		all      bool
		want     bool
	}{
		{name: "a Go file", paths: []string{p("a.go")}},
		{name: "a Go file gone", paths: []string{p("gone.go")}},
		{name: "an editor's temporary files", paths: []string{p("a.go.tmp"), p("4913"), p(".a.go.swp")}},
		{name: "go.mod", paths: []string{p("a.go"), p("go.mod")}, want: true},
		{name: "go.work gone", paths: []string{p("go.work")}, want: true},
		{name: "go.sum", paths: []string{p("sub/go.sum")}, want: true},
		{name: "vendor manifest", paths: []string{p("vendor/modules.txt")}, want: true},
		{name: "a new directory", paths: []string{p("sub")}, want: true},
		{name: "a directory gone", dirsGone: []string{p("old")}, want: true},
		{name: "events lost", all: true, want: true},
	} {
		var fc fileCache
		fc.changed(tc.paths, tc.dirsGone, tc.all)
		if got := fc.layout == 1; got != tc.want {
			t.Errorf("%s: layout moved %v, want %v", tc.name, got, tc.want)
		}
		if fc.epoch != 1 {
			t.Errorf("%s: epoch %d, want 1", tc.name, fc.epoch)
		}
	}
}
