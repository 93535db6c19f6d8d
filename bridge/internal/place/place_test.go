//go:build unix

package place_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// tree makes root and outside directories, with links between them, and
// a fake GOROOT and module cache.
func tree(t *testing.T) (g *place.Gate, root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	goroot, modcache := filepath.Join(base, "goroot"), filepath.Join(base, "modcache")
	for path, text := range map[string]string{
		root + "/a.go":                   "package a\n",
		outside + "/secret.txt":          "secret\n",
		outside + "/pkg/b.go":            "package b\n",
		goroot + "/src/fmt/print.go":     "package fmt\n",
		goroot + "/src/fmt/notes.txt":    "notes\n",
		modcache + "/m@v1/go.mod":        "module m\n",
		modcache + "/m@v1/m.go":          "package m\n",
		modcache + "/cache/download/x.z": "zip\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		root + "/secret.txt": outside + "/secret.txt",
		root + "/sub":        outside + "/pkg",
		root + "/env.txt":    "/proc/self/environ",
		root + "/inner.go":   root + "/a.go",
		root + "/fmt.go":     goroot + "/src/fmt/print.go",
		root + "/notes.txt":  goroot + "/src/fmt/notes.txt",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(root+"/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	return place.New(root, func() (string, string) { return goroot, modcache }), root, outside
}

// TestReadFile: the gate reads files inside the root after resolving
// links, and Go source of GOROOT and the module cache; nothing else, and
// no pipe (which would block).
func TestReadFile(t *testing.T) {
	g, root, outside := tree(t)
	base := filepath.Dir(root)
	got := map[string]string{}
	for _, p := range []string{
		root + "/a.go", root + "/inner.go", root + "/secret.txt", root + "/sub/b.go", root + "/env.txt",
		root + "/fmt.go", root + "/notes.txt", root + "/fifo", root + "/missing.go",
		outside + "/secret.txt", base + "/goroot/src/fmt/print.go", base + "/goroot/src/fmt/notes.txt",
		base + "/modcache/m@v1/go.mod", base + "/modcache/m@v1/m.go", base + "/modcache/cache/download/x.z", "relative.go",
	} {
		data, err := g.ReadFile(p)
		rel := strings.TrimPrefix(p, base+"/")
		switch {
		case err == nil:
			got[rel] = strings.TrimSpace(string(data))
		case errors.Is(err, place.ErrOutside):
			got[rel] = "outside"
		case errors.Is(err, os.ErrNotExist):
			got[rel] = "missing"
		default:
			got[rel] = "refused"
		}
	}
	want := map[string]string{
		"root/a.go": "package a", "root/inner.go": "package a", "root/secret.txt": "outside", "root/sub/b.go": "outside",
		"root/env.txt": "outside", "root/fmt.go": "package fmt", "root/notes.txt": "outside", "root/fifo": "refused",
		"root/missing.go": "missing", "outside/secret.txt": "outside", "goroot/src/fmt/print.go": "package fmt",
		"goroot/src/fmt/notes.txt": "outside", "modcache/m@v1/go.mod": "module m", "modcache/m@v1/m.go": "package m",
		"modcache/cache/download/x.z": "outside", "relative.go": "outside",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the gate reads (-want +got):\n%s", diff)
	}
}

// TestCheckModText: unsaved go.mod and go.work text may point only inside
// the root.
func TestCheckModText(t *testing.T) {
	g, root, outside := tree(t)
	for _, tt := range []struct {
		file, text string
		ok         bool
	}{
		{"go.mod", "module x\n\nreplace m => ./inner\n", true},
		{"go.mod", "module x\n\nreplace m v1.0.0 => m v1.0.1\n", true},
		{"go.mod", "module x\n\nreplace m => " + outside + "\n", false},
		{"go.mod", "module x\n\nreplace m => ../outside\n", false},
		{"go.mod", "module x\n\nreplace m => ./sub\n", false}, // a link out
		{"go.mod", "module x\n\nreplace (\n\tm => ./a\n\tn => /etc\n)\n", false},
		{"go.mod", "module x\nthis does not parse\n", true},
		{"go.work", "go 1.26\n\nuse .\n", true},
		{"go.work", "go 1.26\n\nuse (\n\t.\n\t../outside\n)\n", false},
		{"go.work", "go 1.26\n\nreplace m => " + outside + "\n", false},
		{"a.go", "replace m => /etc\n", true},
	} {
		err := g.CheckModText(filepath.Join(root, tt.file), tt.text)
		if (err == nil) != tt.ok {
			t.Errorf("%s %q: got %v, want ok=%v", tt.file, tt.text, err, tt.ok)
		}
		if err != nil && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "outside the workspace root")) {
			t.Errorf("%s %q: the refusal is not one sentence saying why: %v", tt.file, tt.text, err)
		}
	}
}

// TestDisplay: a path is shown relative to the root, under $GOROOT or
// $GOMODCACHE, or as it is; only the last two are read-only places.
func TestDisplay(t *testing.T) {
	g, root, outside := tree(t)
	base := filepath.Dir(root)
	type shown struct{ Display, ReadOnly string }
	got := map[string]shown{}
	for _, p := range []string{
		root, root + "/a.go", base + "/goroot/src/fmt/print.go",
		base + "/modcache/m@v1/m.go", outside + "/pkg/b.go",
	} {
		got[strings.TrimPrefix(p, base)] = shown{g.Display(p), g.ReadOnlyPlace(p)}
	}
	want := map[string]shown{
		"/root":                    {".", ""},
		"/root/a.go":               {"a.go", ""},
		"/goroot/src/fmt/print.go": {"$GOROOT/src/fmt/print.go", "the Go installation ($GOROOT)"},
		"/modcache/m@v1/m.go":      {"$GOMODCACHE/m@v1/m.go", "the module cache ($GOMODCACHE)"},
		"/outside/pkg/b.go":        {filepath.ToSlash(outside + "/pkg/b.go"), ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Display and ReadOnlyPlace (-want +got):\n%s", diff)
	}
	if got := place.New(root, nil).Display(base + "/goroot/src/fmt/print.go"); got != base+"/goroot/src/fmt/print.go" {
		t.Errorf("Display without GOROOT = %q, want the path as it is", got)
	}
}

// TestBatchShows: a batch, which resolves each directory once, decides
// every path as the gate does, a link in a directory it has already
// resolved included, and asked twice gives the same answers.
func TestBatchShows(t *testing.T) {
	g, root, outside := tree(t)
	base := filepath.Dir(root)
	paths := []string{
		root + "/a.go", root + "/secret.txt", root + "/inner.go", root + "/fmt.go", root + "/notes.txt",
		root + "/env.txt", root + "/missing.go", root + "/new/dir/x.go", root + "/sub/b.go", root + "/sub/missing.go",
		outside + "/pkg/b.go", base + "/goroot/src/fmt/print.go", base + "/goroot/src/fmt/notes.txt",
		base + "/modcache/m@v1/m.go", root + "/../outside/pkg/b.go", "/", "relative.go",
	}
	want := map[string]bool{
		"root/a.go": true, "root/inner.go": true, "root/fmt.go": true, "root/missing.go": true,
		"root/new/dir/x.go": true, "goroot/src/fmt/print.go": true, "modcache/m@v1/m.go": true,
	}
	batch := g.Batch()
	for round := range 2 {
		gate, batched := map[string]bool{}, map[string]bool{}
		for _, p := range paths {
			rel := strings.TrimPrefix(p, base+"/")
			if g.Shows(p) {
				gate[rel] = true
			}
			if batch.Shows(p) {
				batched[rel] = true
			}
		}
		if diff := cmp.Diff(want, gate); diff != "" && round == 0 {
			t.Errorf("what the gate shows (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, batched); diff != "" {
			t.Errorf("round %d: what the batch shows (-want +got):\n%s", round, diff)
		}
	}
}
