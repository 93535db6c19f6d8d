package gocmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// TestRootBuildHas checks which files are in the build gopls makes for the
// root, on the workspace shapes that decide it.
func TestRootBuildHas(t *testing.T) {
	tree := func(t *testing.T, files map[string]string) string {
		t.Helper()
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	const pkg = "package p\n"
	module := map[string]string{
		"go.mod":              "module example.com/m\n\ngo 1.22\n",
		"a.go":                pkg,
		"sub/b.go":            pkg,
		"sub/b_test.go":       pkg,
		"sub/c_windows.go":    pkg,
		"sub/d.go":            "//go:build never\n\n" + pkg,
		"testdata/e.go":       pkg,
		"_hidden/f.go":        pkg,
		"vendor/x.org/y/g.go": pkg,
		"nested/go.mod":       "module example.com/nested\n\ngo 1.22\n",
		"nested/h.go":         pkg,
		"nested/deeper/i.go":  pkg,
		"README.md":           "",
		"sub/notes.txt":       "",
	}
	work := map[string]string{
		"go.work":       "go 1.22\n\nuse (\n\t./a\n\t./b\n)\n",
		"a/go.mod":      "module example.com/a\n\ngo 1.22\n",
		"a/a.go":        pkg,
		"b/go.mod":      "module example.com/b\n\ngo 1.22\n",
		"b/b.go":        pkg,
		"c/go.mod":      "module example.com/c\n\ngo 1.22\n",
		"c/c.go":        pkg,
		"loose/none.go": pkg,
	}
	linux := &Build{From: func() ([]string, string, []string) { return []string{"GOOS=linux", "GOARCH=amd64"}, "", nil }}
	for _, tc := range []struct {
		name  string
		files map[string]string
		env   map[string]string
		want  map[string]bool
	}{
		{"module", module, nil, map[string]bool{
			"a.go": true, "sub/b.go": true, "sub/b_test.go": true,
			"sub/c_windows.go": false, "sub/d.go": false, "testdata/e.go": false, "_hidden/f.go": false,
			"vendor/x.org/y/g.go": false, "nested/h.go": false, "nested/deeper/i.go": false,
			"README.md": false, "sub/notes.txt": false,
		}},
		{"packages driver", module, map[string]string{"GOPACKAGESDRIVER": "/bin/driver"}, map[string]bool{"a.go": false}},
		{"packages driver off", module, map[string]string{"GOPACKAGESDRIVER": "off"}, map[string]bool{"a.go": true}},
		{"go.work", work, nil, map[string]bool{"a/a.go": true, "b/b.go": true, "c/c.go": false, "loose/none.go": false}},
		{"go.work off", work, map[string]string{"GOWORK": "off"}, map[string]bool{"a/a.go": false, "c/c.go": false}},
		{"another go.work", work, map[string]string{"GOWORK": "/elsewhere/go.work"}, map[string]bool{"a/a.go": false}},
		{"no module", map[string]string{"x.go": pkg}, nil, map[string]bool{"x.go": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, tc.files)
			r := &RootBuild{Gate: place.New(root, func() (string, string) { return "", "" }), Build: linux,
				Env: func(key string) string { return tc.env[key] }}
			for name, want := range tc.want {
				if got := r.Has(filepath.Join(root, filepath.FromSlash(name))); got != want {
					t.Errorf("Has(%s) = %v, want %v", name, got, want)
				}
			}
		})
	}

	// The root inside a module: the module above it is the root's build.
	root := tree(t, module)
	r := &RootBuild{Gate: place.New(filepath.Join(root, "sub"), func() (string, string) { return "", "" }), Build: linux,
		Env: func(string) string { return "" }}
	if !r.Has(filepath.Join(root, "sub", "b.go")) {
		t.Error("with the root below go.mod, Has(sub/b.go) = false, want true")
	}
	if r.Has(filepath.Join(root, "a.go")) {
		t.Error("Has of a file outside the root = true, want false")
	}
}
