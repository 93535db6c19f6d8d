package bridge_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// TestMissingModule checks what goplsmcp says of a requirement the module
// cache lacks, as on a fresh clone offline: the module cache is a new,
// empty directory (given to gopls as GOMODCACHE, as --env does), and the
// workspace requires golang.org/x/mod. go_workspace names the module and
// the one command that gets it; the "could not import" diagnostic and the
// tool errors about a use of the package carry the same hint, so that an
// agent does not set out to fix correct code.
func TestMissingModule(t *testing.T) {
	root := realTempDir(t)
	writeWorkspaceFile(t, root, "go.mod", []byte("module example.com/needsmod\n\ngo 1.26\n\nrequire golang.org/x/mod v0.38.0\n"))
	writeWorkspaceFile(t, root, "go.sum", []byte("golang.org/x/mod v0.38.0 h1:MECBjubtXD7yj4HrhIUcywNaGeNVUdfVnxmPajOk4yk=\n"+
		"golang.org/x/mod v0.38.0/go.mod h1:V6Xz0pq8TQ3dGqVQ1FVHuelZpAL0uNhSkk9ogYP3c40=\n"))
	writeWorkspaceFile(t, root, "main.go", []byte("package main\n\nimport \"golang.org/x/mod/semver\"\n\nfunc main() { println(semver.IsValid(\"v1\")) }\n"))
	cache := realTempDir(t)
	st := startStackOf(t, root, stackConfig{lsp: lspclient.Options{Settings: map[string]any{"env": map[string]any{"GOMODCACHE": cache}}}})
	c, ctx := st.client, testCtx(t)
	const hint = "module golang.org/x/mod@v0.38.0 is not in the module cache: run `go mod download` in the workspace root, or restart goplsmcp with --allow-network"

	res, err := c.CallTool(ctx, "go_workspace", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("go_workspace: %v %s", err, res.Text())
	}
	var ws bridge.WorkspaceOutput
	if err := json.Unmarshal(res.StructuredContent, &ws); err != nil {
		t.Fatal(err)
	}
	m, _ := ws.Modules.Get("example.com/needsmod")
	want := bridge.WorkspaceModule{GoMod: "go.mod", Go: "1.26", Missing: []string{"golang.org/x/mod@v0.38.0"},
		Fix: "run `go mod download` in the workspace root, or restart goplsmcp with --allow-network"}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("go_workspace's module (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Text(), "missing from the module cache: golang.org/x/mod@v0.38.0") {
		t.Errorf("go_workspace's text does not name the missing module:\n%s", res.Text())
	}

	res, err = c.CallTool(ctx, "go_diagnostics", map[string]any{"files": []string{"main.go"}})
	if err != nil || res.IsError {
		t.Fatalf("go_diagnostics: %v %s", err, res.Text())
	}
	var diags bridge.DiagnosticsOutput
	if err := json.Unmarshal(res.StructuredContent, &diags); err != nil {
		t.Fatal(err)
	}
	f, _ := diags.Files.Get("main.go")
	if !slices.ContainsFunc(f.At, func(d string) bool { return strings.HasSuffix(d, "; "+hint) }) {
		t.Errorf("no diagnostic of main.go carries the hint %q: %q", hint, f.At)
	}

	// The package's name, what it selects, and the import itself.
	for _, at := range []map[string]any{
		{"file": "main.go", "line": 4, "character": 23},
		{"file": "main.go", "line": 4, "character": 30},
		{"file": "main.go", "line": 2, "character": 10},
	} {
		for _, tool := range []string{"go_describe", "go_definition"} {
			res, err := c.CallTool(ctx, tool, at)
			if err != nil {
				t.Fatal(err)
			}
			// The definition of the package's name is its import, found
			// without the package: the answer says why there is no more.
			if (!res.IsError && (tool != "go_definition" || at["character"] != 23)) || !strings.Contains(res.Text(), hint) {
				t.Errorf("%s %v: %s; want a tool error saying the module is missing and how to get it", tool, at, res.Text())
			}
		}
	}
}

// TestSymbolInBuild checks that a symbol resolves in the build gopls
// type-checks: Labels is declared in three files under different build
// constraints (as prometheus's model/labels does), and only the one the
// build constraints in force select is a candidate, by default and under
// build flags.
func TestSymbolInBuild(t *testing.T) {
	files := map[string]string{
		"go.mod":                "module example.com/labels\n\ngo 1.26\n",
		"labels_common.go":      "package labels\n\n// Len counts the labels.\nfunc Len(ls Labels) int { return ls.Len() }\n",
		"labels_default.go":     "//go:build !slicelabels && !dedupelabels\n\npackage labels\n\n// Labels is the default.\ntype Labels struct{ data string }\n\nfunc (ls Labels) Len() int { return len(ls.data) }\n",
		"labels_slicelabels.go": "//go:build slicelabels\n\npackage labels\n\n// Labels is a slice.\ntype Labels []string\n\nfunc (ls Labels) Len() int { return len(ls) }\n",
		"labels_dedupe.go":      "//go:build dedupelabels\n\npackage labels\n\n// Labels shares its strings.\ntype Labels struct{ syms []int }\n\nfunc (ls Labels) Len() int { return len(ls.syms) }\n",
	}
	for _, tt := range []struct {
		name  string
		flags []any
		want  string // the file declaring Labels
	}{
		{"default", nil, "labels_default.go"},
		{"-tags=slicelabels", []any{"-tags=slicelabels"}, "labels_slicelabels.go"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := realTempDir(t)
			for name, text := range files {
				writeWorkspaceFile(t, root, name, []byte(text))
			}
			var settings map[string]any
			if tt.flags != nil {
				settings = map[string]any{"buildFlags": tt.flags}
			}
			c := startStackOf(t, root, stackConfig{lsp: lspclient.Options{Settings: settings}}).client
			ctx := testCtx(t)
			res, err := c.CallTool(ctx, "go_definition", map[string]any{"file": "labels_common.go", "symbol": "Labels"})
			if err != nil || res.IsError {
				t.Fatalf("go_definition: %v %s", err, res.Text())
			}
			if !strings.HasPrefix(res.Text(), tt.want+":") {
				t.Errorf("go_definition of Labels: %s; want its declaration in %s", res.Text(), tt.want)
			}
			res, err = c.CallTool(ctx, "go_symbol_references", map[string]any{"file": "labels_common.go", "symbol": "Labels"})
			if err != nil || res.IsError {
				t.Fatalf("go_symbol_references: %v %s", err, res.Text())
			}
			var refs bridge.ReferencesOutput
			if err := json.Unmarshal(res.StructuredContent, &refs); err != nil {
				t.Fatal(err)
			}
			if decl := refs.Declaration; !strings.HasPrefix(decl, tt.want+":") {
				t.Errorf("references of Labels: the declaration is %q, want one in %s:\n%s", decl, tt.want, res.Text())
			}
			if _, ok := refs.Refs.Get("labels_common.go"); !ok {
				t.Errorf("references of Labels miss its use in labels_common.go:\n%s", res.Text())
			}
		})
	}
}
