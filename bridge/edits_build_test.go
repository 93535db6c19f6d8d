package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// edit is an edit as the tools return it.
type edit struct {
	File  string `json:"file"`
	Range struct {
		Start, End struct{ Line, Character int }
	} `json:"range"`
	NewText string `json:"newText"`
}

// TestEditsBuild asks for a rename across three packages, gofmt edits,
// organized imports and a filled struct literal; applies the returned
// edits to a copy of the module, as an agent would; and runs the real go
// build on the result. The module does not build before (one file lacks
// an import), and must build after. The unified diffs, applied by git
// apply to another copy, must give the same files.
func TestEditsBuild(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	gitCmd, _ := exec.LookPath("git")
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
		// check inspects the edits.
		check func(t *testing.T, edits []edit)
	}{
		{"go_rename_symbol", map[string]any{"file": "trip/trip.go", "symbol": "geo.Point", "new_name": "Place"},
			func(t *testing.T, edits []edit) {
				var dirs []string
				for _, e := range edits {
					dirs = append(dirs, filepath.Dir(e.File))
				}
				slices.Sort(dirs)
				if got := slices.Compact(dirs); !slices.Equal(got, []string{"geo", "route", "trip"}) {
					t.Errorf("rename edits packages %v, want geo, route and trip", got)
				}
			}},
		{"go_format", map[string]any{"file": "messy/messy.go"}, nil},
		{"go_organize_imports", map[string]any{"file": "imports/imports.go"}, nil},
		{"go_code_actions", map[string]any{"file": "config/config.go", "line": 12, "character": 7, "name": "Config", "title": "Fill Config"}, nil},
	}
	var all []edit
	var diffs strings.Builder
	for _, call := range calls {
		res, err := c.CallTool(ctx, call.tool, call.args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.tool, err, res.Text())
		}
		var out struct {
			Edits   []edit `json:"edits"`
			Diff    string `json:"diff"`
			Applied *bool  `json:"applied"`
			Chosen  *struct {
				Edits   []edit `json:"edits"`
				Diff    string `json:"diff"`
				Applied *bool  `json:"applied"`
			} `json:"chosen"`
		}
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			t.Fatalf("%s: %v", call.tool, err)
		}
		if out.Chosen != nil {
			out.Edits, out.Diff, out.Applied = out.Chosen.Edits, out.Chosen.Diff, out.Chosen.Applied
		}
		if len(out.Edits) == 0 || out.Diff == "" {
			t.Fatalf("%s proposed no edits: %s", call.tool, res.Text())
		}
		if out.Applied == nil || *out.Applied {
			t.Errorf("%s: applied = %v, want false", call.tool, out.Applied)
		}
		if call.check != nil {
			call.check(t, out.Edits)
		}
		all = append(all, out.Edits...)
		diffs.WriteString(out.Diff)
	}

	// Nothing was written to the workspace.
	for _, f := range ar.Files {
		if got, _ := os.ReadFile(filepath.Join(root, f.Name)); !bytes.Equal(got, f.Data) {
			t.Errorf("%s changed on disk", f.Name)
		}
	}

	edited := copyArchive(t, ar)
	applyEdits(t, edited, all)
	if out, err := goBuild(goCmd, edited); err != nil {
		t.Fatalf("go build after applying the edits: %v\n%s", err, out)
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

	if gitCmd == "" {
		return
	}
	patched := copyArchive(t, ar)
	cmd := exec.Command(gitCmd, "apply", "--whitespace=nowarn", "-")
	cmd.Dir = patched
	cmd.Stdin = strings.NewReader(diffs.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply of the diffs: %v\n%s\n%s", err, out, diffs.String())
	}
	for _, f := range ar.Files {
		want, _ := os.ReadFile(filepath.Join(edited, f.Name))
		got, _ := os.ReadFile(filepath.Join(patched, f.Name))
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s: the diff and the edits disagree (-edits +diff):\n%s", f.Name, diff)
		}
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

// applyEdits applies LSP-style edits (0-based lines, UTF-16 characters,
// ranges in the original text) to the files under dir.
func applyEdits(t *testing.T, dir string, edits []edit) {
	t.Helper()
	byFile := map[string][]edit{}
	for _, e := range edits {
		byFile[e.File] = append(byFile[e.File], e)
	}
	for file, es := range byFile {
		path := filepath.Join(dir, filepath.FromSlash(file))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		offset := func(line, char int) int {
			off := 0
			for range line {
				i := strings.IndexByte(text[off:], '\n')
				if i < 0 {
					t.Fatalf("%s: line %d is past the end", file, line)
				}
				off += i + 1
			}
			units := 0
			for i, r := range text[off:] {
				if units >= char || r == '\n' {
					return off + i
				}
				units += len(utf16.Encode([]rune{r}))
			}
			return len(text)
		}
		slices.SortStableFunc(es, func(a, b edit) int {
			if a.Range.Start.Line != b.Range.Start.Line {
				return a.Range.Start.Line - b.Range.Start.Line
			}
			return a.Range.Start.Character - b.Range.Start.Character
		})
		// Last first, so that earlier offsets stay valid (and insertions
		// at one place keep their order).
		for i := len(es) - 1; i >= 0; i-- {
			e := es[i]
			start := offset(e.Range.Start.Line, e.Range.Start.Character)
			end := offset(e.Range.End.Line, e.Range.End.Character)
			text = text[:start] + e.NewText + text[end:]
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
