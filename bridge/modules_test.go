package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
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
		{"file": "main.go", "line": 5, "column": 24},
		{"file": "main.go", "line": 5, "column": 31},
		{"file": "main.go", "line": 3, "column": 11},
	} {
		for _, tool := range []string{"go_describe", "go_definition"} {
			res, err := c.CallTool(ctx, tool, at)
			if err != nil {
				t.Fatal(err)
			}
			// The definition of the package's name is its import, found
			// without the package: the answer says why there is no more.
			if (!res.IsError && (tool != "go_definition" || at["column"] != 24)) || !strings.Contains(res.Text(), hint) {
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

// TestBuildsKeptAcrossGoEdits checks what the workspace's builds are kept
// across: go_diagnostics after a Go file changed on disk asks gopls
// neither for its views nor for its packages again (two requests before
// every diagnosis after an edit otherwise) and still sees the edit; a new
// go.mod, and the loss of the Go file that named the root's build, have
// them found again, and the diagnosis still answers.
func TestBuildsKeptAcrossGoEdits(t *testing.T) {
	root := exampleRoot(t)
	c, _ := startConfigured(t, root, bridge.Config{})
	ctx := testCtx(t)
	diagnose := func(files ...string) (text string, asked []string) {
		t.Helper()
		args := map[string]any{"debug": true}
		if len(files) > 0 {
			args["files"] = files
		}
		res, err := c.CallTool(ctx, "go_diagnostics", args)
		if err != nil || res.IsError {
			t.Fatalf("go_diagnostics %v: %v %s", files, err, res.Text())
		}
		var out struct {
			Debug *mcp.DebugInfo `json:"debug"`
		}
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil || out.Debug == nil {
			t.Fatalf("no debug in %s (%v)", res.StructuredContent, err)
		}
		for _, e := range out.Debug.Requests {
			if strings.HasSuffix(e.Method, " gopls.views") || strings.HasSuffix(e.Method, " gopls.packages") {
				asked = append(asked, strings.TrimPrefix(e.Method, "workspace/executeCommand "))
			}
		}
		return res.Text(), asked
	}
	builds := []string{"gopls.views", "gopls.packages"}

	// The builds are kept by the documents open in gopls too (opening a
	// file may give gopls a build): the first call opens report.go, as
	// each call after an edit of it does again.
	if _, asked := diagnose("report/report.go"); !cmp.Equal(asked, builds) {
		t.Fatalf("the first diagnosis asked %v, want %v", asked, builds)
	}
	report := filepath.Join(root, "report", "report.go")
	src, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	// Written in place, then as editors save: a temporary file renamed
	// over it.
	for i, name := range []string{"firstUndefined", "secondUndefined"} {
		broken := string(src) + "\nfunc broken() int { return " + name + " }\n"
		if i == 0 {
			writeWorkspaceFile(t, root, "report/report.go", []byte(broken))
		} else {
			writeWorkspaceFile(t, root, "report/report.go.tmp", []byte(broken))
			if err := os.Rename(report+".tmp", report); err != nil {
				t.Fatal(err)
			}
		}
		text, asked := diagnose("report/report.go")
		// One error, and its quick fix (asked on its range alone).
		if !strings.Contains(text, "undefined: "+name) || !strings.Contains(text, "fix: Create variable "+name) {
			t.Errorf("edit %d: the diagnosis does not see it:\n%s", i+1, text)
		}
		if len(asked) > 0 {
			t.Errorf("edit %d of a Go file: the diagnosis asked gopls %v again", i+1, asked)
		}
	}

	// A new module in the tree.
	writeWorkspaceFile(t, root, "tools/go.mod", []byte("module example.com/tools\n\ngo 1.26\n"))
	writeWorkspaceFile(t, root, "tools/tools.go", []byte("package tools\n"))
	if _, asked := diagnose(); !cmp.Equal(asked, builds) {
		t.Errorf("after a new go.mod the diagnosis asked %v, want %v", asked, builds)
	}
	if _, asked := diagnose(); len(asked) > 0 {
		t.Errorf("nothing changed, yet the diagnosis asked %v", asked)
	}

	// The Go file that names the root module's build goes (the first one
	// a breadth-first walk finds); the next one names it.
	if err := os.Remove(filepath.Join(root, "main.go")); err != nil {
		t.Fatal(err)
	}
	text, asked := diagnose()
	if !cmp.Equal(asked, builds) {
		t.Errorf("after main.go went the diagnosis asked %v, want %v", asked, builds)
	}
	if !strings.Contains(text, "undefined: secondUndefined") {
		t.Errorf("after main.go went the workspace's diagnosis lost report.go's error:\n%s", text)
	}
}

// TestPackageListKept checks that go_package_api asks gopls for the
// workspace's packages once while the tree's layout stays, Go edits
// included (on GOROOT/src the list cost 30–200 ms of a busy machine at
// every call), and asks again when a directory that was there gets its
// first Go file or loses its last one, which no directory event tells:
// later/ holds no Go file, only a package below it (so it is watched).
func TestPackageListKept(t *testing.T) {
	root := exampleRoot(t)
	writeWorkspaceFile(t, root, "later/below/below.go", []byte("package below\n"))
	c, _ := startConfigured(t, root, bridge.Config{})
	ctx := testCtx(t)
	api := func(path string) (text string, asked int) {
		t.Helper()
		res, err := c.CallTool(ctx, "go_package_api", map[string]any{"packagePaths": []string{path}, "debug": true})
		if err != nil {
			t.Fatalf("go_package_api %s: %v", path, err)
		}
		// The debug trace ends the text, error or not.
		asked = strings.Count(res.Text(), "workspace/executeCommand gopls.packages ")
		return res.Text(), asked
	}
	if text, asked := api("example.com/shapes/report"); asked != 1 || !strings.Contains(text, "package report") {
		t.Fatalf("the first call asked gopls.packages %d times, want 1:\n%s", asked, text)
	}
	src, err := os.ReadFile(filepath.Join(root, "report", "report.go"))
	if err != nil {
		t.Fatal(err)
	}
	writeWorkspaceFile(t, root, "report/report.go", append(src, "\n// Added is new.\nfunc Added() {}\n"...))
	if text, asked := api("example.com/shapes/report"); asked != 0 || !strings.Contains(text, "func Added()") {
		t.Errorf("after an edit of a Go file the call asked gopls.packages %d times, want 0, or missed the edit:\n%s", asked, text)
	}

	writeWorkspaceFile(t, root, "later/later.go", []byte("package later\n\n// Later came after.\nfunc Later() {}\n"))
	if text, asked := api("example.com/shapes/later"); asked != 1 || !strings.Contains(text, "func Later()") {
		t.Errorf("after a directory's first Go file the call asked gopls.packages %d times, want 1:\n%s", asked, text)
	}
	if err := os.Remove(filepath.Join(root, "later", "later.go")); err != nil {
		t.Fatal(err)
	}
	if text, asked := api("example.com/shapes/later"); asked != 1 || strings.Contains(text, "func Later()") {
		t.Errorf("after a directory's last Go file went the call asked gopls.packages %d times, want 1, or still lists it:\n%s", asked, text)
	}
}
