package bridge_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/tools/txtar"
)

// startConfigured runs the whole server in-process on root with a bridge
// configured by cfg, and returns an initialized client and the bridge.
func startConfigured(t *testing.T, root string, cfg bridge.Config) (*mcp.Client, *bridge.Bridge) {
	t.Helper()
	st := startStackOf(t, root, stackConfig{bridge: cfg})
	return st.client, st.bridge
}

// changesOf decodes the edit count, diff and applied flag of an edit
// tool's result (a chosen code action's, for go_code_actions).
func changesOf(t *testing.T, res *mcp.ToolResultJSON) (edits int, diff string, applied bool) {
	t.Helper()
	type changes struct {
		Edits   int    `json:"edits"`
		Diff    string `json:"diff"`
		Applied bool   `json:"applied"`
	}
	var out struct {
		changes
		Chosen *changes `json:"chosen"`
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	if out.Chosen != nil {
		return out.Chosen.Edits, out.Chosen.Diff, out.Chosen.Applied
	}
	return out.Edits, out.Diff, out.Applied
}

// snapshot reads every file under root, by slash path.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestApplyBuild makes the calls of TestEditsBuild with apply: true, on
// the workspace itself, one after the other: each must be written to disk
// exactly as its diff says (checked against the diff applied by git apply
// to a copy), keep the files' permission bits, leave no temporary
// file, and let the next call see the new files. The module must build
// afterwards.
func TestApplyBuild(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	ar, err := txtar.ParseFile("../testdata/edits.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root := copyArchive(t, ar)
	mirror := copyArchive(t, ar)
	// Unusual modes, which the writes must keep.
	modes := map[string]fs.FileMode{"geo/geo.go": 0o640, "route/route.go": 0o600, "messy/messy.go": 0o604}
	for name, mode := range modes {
		if err := os.Chmod(filepath.Join(root, name), mode); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := startConfigured(t, root, bridge.Config{AllowWrite: true})
	ctx := testCtx(t)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"go_rename_symbol", map[string]any{"file": "trip/trip.go", "symbol": "geo.Point", "new_name": "Place"}},
		{"go_format", map[string]any{"file": "messy/messy.go"}},
		{"go_organize_imports", map[string]any{"file": "imports/imports.go"}},
		{"go_code_actions", map[string]any{"file": "config/config.go", "line": 13, "column": 8, "name": "Config", "title": "Fill Config"}},
	}
	for _, call := range calls {
		call.args["apply"] = true
		res, err := c.CallTool(ctx, call.tool, call.args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.tool, err, res.Text())
		}
		edits, diff, applied := changesOf(t, res)
		if !applied || edits == 0 {
			t.Fatalf("%s: applied %v with %d edits: %s", call.tool, applied, edits, res.Text())
		}
		if text := res.Text(); !strings.HasPrefix(text, "applied: ") && !strings.Contains(text, "\napplied: ") {
			t.Errorf("%s: the text does not say the edits were applied:\n%s", call.tool, res.Text())
		}
		gitApply(t, mirror, diff)
		if diff := cmp.Diff(snapshot(t, mirror), snapshot(t, root)); diff != "" {
			t.Fatalf("%s: the workspace is not the diff applied (-diff +disk):\n%s", call.tool, diff)
		}
	}
	for name, mode := range modes {
		fi, err := os.Stat(filepath.Join(root, name))
		if err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v (err %v) after the write, want %v", name, fi.Mode().Perm(), err, mode)
		}
	}
	if out, err := goBuild(goCmd, root); err != nil {
		t.Fatalf("go build after the writes: %v\n%s", err, out)
	}

	// gopls knows: the renamed type is found by its new name, everywhere.
	res, err := c.CallTool(ctx, "go_symbol_references", map[string]any{"symbol": "geo.Place"})
	if err != nil || res.IsError {
		t.Fatalf("references to the renamed type: %v %s", err, res.Text())
	}
	for _, file := range []string{"geo/geo.go", "route/route.go", "trip/trip.go"} {
		if !strings.Contains(res.Text(), file) {
			t.Errorf("references to geo.Place after the write miss %s:\n%s", file, res.Text())
		}
	}
	// And the formatted file needs nothing more.
	res, err = c.CallTool(ctx, "go_format", map[string]any{"file": "messy/messy.go", "apply": true})
	if err != nil {
		t.Fatalf("formatting again: %v", err)
	}
	if res.IsError || res.Text() != "already formatted" {
		t.Errorf("formatting again: %s", res.Text())
	}
}

// TestApplyRefusedWhenChanged changes one of a rename's files after the
// edits are computed and before they are written (in the window the
// bridge opens for tests): the whole apply is refused, and no file is
// written, not even those that did not change.
func TestApplyRefusedWhenChanged(t *testing.T) {
	root := exampleRoot(t)
	before := snapshot(t, root)
	c, br := startConfigured(t, root, bridge.Config{AllowWrite: true})
	changed := filepath.Join(root, "report", "report.go")
	meddled := before["report/report.go"] + "\n// changed by another program\n"
	bridge.SetBeforeWrite(br, func() {
		if err := os.WriteFile(changed, []byte(meddled), 0o644); err != nil {
			t.Error(err)
		}
	})
	ctx := testCtx(t)
	res, err := c.CallTool(ctx, "go_rename_symbol", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape", "new_name": "Figure", "apply": true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text(), "report/report.go on disk is not the text the edits were computed for") ||
		!strings.Contains(res.Text(), "nothing was written") {
		t.Fatalf("apply after a change: %s", res.Text())
	}
	want := before
	want["report/report.go"] = meddled
	if diff := cmp.Diff(want, snapshot(t, root)); diff != "" {
		t.Errorf("files after a refused apply (-want +got):\n%s", diff)
	}

	// Without the interference, the same call writes: the refusal was
	// the change's doing.
	bridge.SetBeforeWrite(br, nil)
	res, err = c.CallTool(ctx, "go_rename_symbol", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape", "new_name": "Figure", "apply": true})
	if err != nil || res.IsError {
		t.Fatalf("apply without interference: %v %s", err, res.Text())
	}
	after := snapshot(t, root)
	for _, f := range []string{"main.go", "report/report.go", "shapes/shapes.go"} {
		if !strings.Contains(after[f], "Figure") {
			t.Errorf("%s after the rename:\n%s", f, after[f])
		}
	}
	if !strings.HasSuffix(after["report/report.go"], "// changed by another program\n") {
		t.Errorf("the rename lost the other program's change to report.go")
	}
}

// TestApplyOverlayRefused: edits computed for unsaved text are not
// written over a file whose content is something else.
func TestApplyOverlayRefused(t *testing.T) {
	root := exampleRoot(t)
	before := snapshot(t, root)
	c, _ := startConfigured(t, root, bridge.Config{AllowWrite: true})
	ctx := testCtx(t)
	text := strings.Replace(before["main.go"], "func main() {", "func   main()   {", 1)
	res, err := c.CallTool(ctx, "go_format", map[string]any{"file": "main.go", "text": text, "apply": true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text(), "main.go on disk is not the text the edits were computed for") {
		t.Errorf("apply to an overlay: %s", res.Text())
	}
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("files after a refused apply (-want +got):\n%s", diff)
	}
}

// TestApplyOutsideRoot: a file of a package that is a symbolic link to a
// file outside the root is never written, and neither is anything else of
// the change.
func TestApplyOutsideRoot(t *testing.T) {
	root := exampleRoot(t)
	outside := realTempDir(t)
	extra := "package shapes\n\n// Unit is a unit square.\nvar Unit Shape = Rect{W: 1, H: 1}\n"
	outsideFile := filepath.Join(outside, "extra.go")
	if err := os.WriteFile(outsideFile, []byte(extra), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outsideFile, filepath.Join(root, "shapes", "extra.go")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root)
	c, _ := startConfigured(t, root, bridge.Config{AllowWrite: true})
	ctx := testCtx(t)
	res, err := c.CallTool(ctx, "go_rename_symbol", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape", "new_name": "Figure", "apply": true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text(), "outside the workspace root") {
		t.Errorf("apply through a link out of the root: %s", res.Text())
	}
	if got, _ := os.ReadFile(outsideFile); string(got) != extra {
		t.Errorf("the file outside the root changed:\n%s", got)
	}
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("files after a refused apply (-want +got):\n%s", diff)
	}
}

// TestApplyDisabled: without --allow-write, apply: true is a tool error
// saying writes are disabled, before any work; the edit tools are
// annotated read-only. With it, exactly the four edit tools are
// destructive.
func TestApplyDisabled(t *testing.T) {
	root := exampleRoot(t)
	before := snapshot(t, root)
	c, _ := startConfigured(t, root, bridge.Config{})
	ctx := testCtx(t)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"go_rename_symbol", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape", "new_name": "Figure"}},
		{"go_format", map[string]any{"file": "main.go"}},
		{"go_organize_imports", map[string]any{"file": "main.go"}},
		{"go_code_actions", map[string]any{"file": "main.go", "line": 11, "column": 2, "index": 0}},
	} {
		call.args["apply"] = true
		res, err := c.CallTool(ctx, call.tool, call.args)
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(res.Text(), "--allow-write") || !strings.Contains(res.Text(), "writes are disabled") {
			t.Errorf("%s with apply and no --allow-write: %s", call.tool, res.Text())
		}
	}
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("files changed without --allow-write (-want +got):\n%s", diff)
	}

	// The catalogue's editing tools, which alone take apply.
	var editTools []string
	for _, spec := range bridge.Catalogue() {
		if spec.Edits && !spec.Optional {
			editTools = append(editTools, spec.Name)
		}
	}
	slices.Sort(editTools)
	for _, allow := range []bool{false, true} {
		c := c
		if allow {
			c, _ = startConfigured(t, exampleRoot(t), bridge.Config{AllowWrite: true})
		}
		var list struct {
			Tools []struct {
				Name        string
				Description string
				InputSchema struct {
					Properties map[string]any
				}
				Annotations map[string]bool
			}
		}
		if err := c.Call(ctx, "tools/list", map[string]any{}, &list); err != nil {
			t.Fatal(err)
		}
		var destructive []string
		for _, tool := range list.Tools {
			a := tool.Annotations
			isEdit := slices.Contains(editTools, tool.Name)
			if a["destructiveHint"] {
				destructive = append(destructive, tool.Name)
			}
			if a["readOnlyHint"] == (allow && isEdit) {
				t.Errorf("allow-write %v: %s has readOnlyHint %v", allow, tool.Name, a["readOnlyHint"])
			}
			if _, ok := tool.InputSchema.Properties["apply"]; ok != isEdit {
				t.Errorf("%s: apply argument present: %v", tool.Name, ok)
			}
			if isEdit && strings.Contains(tool.Description, "apply: true") != allow {
				t.Errorf("allow-write %v: %s's description: %s", allow, tool.Name, tool.Description)
			}
		}
		slices.Sort(destructive)
		want := editTools
		if !allow {
			want = nil
		}
		if diff := cmp.Diff(want, destructive); diff != "" {
			t.Errorf("allow-write %v: destructive tools (-want +got):\n%s", allow, diff)
		}
	}
}
