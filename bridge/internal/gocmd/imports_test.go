package gocmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// TestImportPath names packages in GOROOT, the module cache and the
// modules under the root, without running the go command.
func TestImportPath(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	goroot, modcache, root := filepath.Join(tmp, "goroot"), filepath.Join(tmp, "modcache"), filepath.Join(tmp, "ws")
	env := &Env{}
	env.once.Do(func() { env.goroot, env.modcache = goroot, modcache })
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "go.mod"), "// the module\nmodule \"example.com/m\" // quoted\n\ngo 1.22\n")
	write(filepath.Join(root, "nested", "go.mod"), "module example.com/nested\n")
	gate := place.New(root, env.Dirs)
	ip := NewImportPaths(env, gate)

	tests := []struct{ dir, want string }{
		{filepath.Join(goroot, "src", "net", "http"), "net/http"},
		{filepath.Join(goroot, "src", "vendor", "golang.org", "x", "net"), "golang.org/x/net"},
		{filepath.Join(goroot, "src", "cmd", "vendor", "golang.org", "x", "mod"), "golang.org/x/mod"},
		{filepath.Join(goroot, "src"), ""},
		{filepath.Join(modcache, "github.com", "!burnt!sushi", "toml@v1.6.0", "internal"), "github.com/BurntSushi/toml/internal"},
		{filepath.Join(modcache, "golang.org", "x", "mod@v0.38.0"), "golang.org/x/mod"},
		{root, "example.com/m"},
		{filepath.Join(root, "a", "b"), "example.com/m/a/b"},
		{filepath.Join(root, "vendor", "rsc.io", "quote"), "rsc.io/quote"},
		{filepath.Join(root, "nested", "x"), "example.com/nested/x"},
		{filepath.Join(tmp, "elsewhere"), ""},
	}
	for _, tt := range tests {
		if got := ip.Of(tt.dir); got != tt.want {
			t.Errorf("ImportPath(%s) = %q, want %q", tt.dir, got, tt.want)
		}
	}
	// Asked again, a directory's path is the one found first.
	write(filepath.Join(root, "go.mod"), "module example.com/renamed\n")
	if got := ip.Of(root); got != "example.com/m" {
		t.Errorf("ImportPaths.Of asked again = %q, want the path found first", got)
	}
	if got := ImportPath(env, gate, root); got != "example.com/renamed" {
		t.Errorf("ImportPath after go.mod changed = %q, want example.com/renamed", got)
	}
}

func TestIsStdPath(t *testing.T) {
	for path, want := range map[string]bool{
		"fmt":                      true,
		"net/http":                 true,
		"golang.org/x/tools/gopls": false,
		"example.com":              false,
		"example.com/m/sub":        false,
		"m/sub":                    true, // no dot: read as standard, as the go command does for a module path without one
	} {
		if got := IsStdPath(path); got != want {
			t.Errorf("IsStdPath(%q) = %v, want %v", path, got, want)
		}
	}
}
