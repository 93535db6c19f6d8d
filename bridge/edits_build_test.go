package bridge_test

import (
	"bytes"
	"context"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// TestEditsBuild asks for a rename across three packages, gofmt edits,
// organized imports and a filled struct literal; applies the returned
// unified diffs to a copy of the module with git apply, as an agent would;
// and runs the real go build on the result. The module does not build
// before (one file lacks an import), and must build after.
func TestEditsBuild(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	ar, err := txtar.ParseFile("../testdata/edits.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root := realTempDir(t)
	for _, f := range ar.Files {
		writeWorkspaceFile(t, root, f.Name, f.Data)
	}
	if out, err := goBuild(goCmd, root); err == nil {
		t.Fatalf("the fixture builds before the edits; it should not (imports/imports.go lacks fmt):\n%s", out)
	}

	c := startStack(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	calls := []struct {
		tool string
		args map[string]any
		// files are the files the diff must change.
		files []string
	}{
		{"go_rename_symbol", map[string]any{"file": "trip/trip.go", "symbol": "geo.Point", "new_name": "Place"},
			[]string{"geo/geo.go", "route/route.go", "trip/trip.go"}},
		{"go_format", map[string]any{"file": "messy/messy.go"}, []string{"messy/messy.go"}},
		{"go_organize_imports", map[string]any{"file": "imports/imports.go"}, []string{"imports/imports.go"}},
		{"go_code_actions", map[string]any{"file": "config/config.go", "line": 13, "column": 8, "name": "Config", "title": "Fill Config"},
			[]string{"config/config.go"}},
	}
	var diffs strings.Builder
	for _, call := range calls {
		res, err := c.CallTool(ctx, call.tool, call.args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.tool, err, res.Text())
		}
		edits, diff, applied := changesOf(t, res)
		if edits == 0 || diff == "" {
			t.Fatalf("%s proposed no edits: %s", call.tool, res.Text())
		}
		if applied {
			t.Errorf("%s: applied = true, want false", call.tool)
		}
		if got := diffFiles(diff); !slices.Equal(got, call.files) {
			t.Errorf("%s: the diff changes %v, want %v", call.tool, got, call.files)
		}
		diffs.WriteString(diff)
	}

	// Nothing was written to the workspace.
	for _, f := range ar.Files {
		if got, _ := os.ReadFile(filepath.Join(root, f.Name)); !bytes.Equal(got, f.Data) {
			t.Errorf("%s changed on disk", f.Name)
		}
	}

	edited := copyArchive(t, ar)
	gitApply(t, edited, diffs.String())
	if out, err := goBuild(goCmd, edited); err != nil {
		t.Fatalf("go build after applying the diffs: %v\n%s", err, out)
	}
	formatted, _ := os.ReadFile(filepath.Join(edited, "messy", "messy.go"))
	if want, err := format.Source(formatted); err != nil || !bytes.Equal(want, formatted) {
		t.Errorf("messy.go is not gofmt-clean after the format edits:\n%s", formatted)
	}
	filled, _ := os.ReadFile(filepath.Join(edited, "config", "config.go"))
	for _, field := range []string{"Name:", "Retries:", "Tags:"} {
		if !bytes.Contains(filled, []byte(field)) {
			t.Errorf("config.go after fill struct lacks %s:\n%s", field, filled)
		}
	}
}

// gitApply applies a unified diff to the files under dir with git apply,
// which takes exactly what the tools promise (-p1 paths).
func gitApply(t *testing.T, dir, diff string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git command to apply diffs with")
	}
	cmd := exec.Command(git, "apply", "--whitespace=nowarn", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\n%s", err, out, diff)
	}
}

func copyArchive(t *testing.T, ar *txtar.Archive) string {
	t.Helper()
	dir := realTempDir(t)
	for _, f := range ar.Files {
		writeWorkspaceFile(t, dir, f.Name, f.Data)
	}
	return dir
}

func goBuild(goCmd, dir string) ([]byte, error) {
	cmd := exec.Command(goCmd, "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod")
	return cmd.CombinedOutput()
}
