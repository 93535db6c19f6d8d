package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/golden/*.txtar, and the files the catalogue writes (TestCatalogueFiles)")

// TestGolden runs each archive in testdata/golden against a real gopls.
//
// An archive holds a workspace (every file whose name does not start with
// "@") and a script of tool calls, run in order:
//
//	-- @NAME.call --
//	{"tool": "go_definition", "args": {"file": "a.go", "symbol": "Foo"}}
//	-- @NAME.text --
//	the lean text answer; a tool error is "ERROR: " + its message
//	-- @NAME.json --
//	the structuredContent, indented (none for a tool error, which has none)
//
// Between calls, the script may change the workspace on disk, as another
// program would, and say what a call that applies edits wrote:
//
//	-- @NAME.write PATH --
//	the new content of PATH (relative to the root), written at this point
//	-- @NAME.delete PATH --
//	(empty; PATH is removed at this point)
//	-- @NAME.disk PATH --
//	the content PATH must have on disk at this point (rewritten by -update)
//
// A workspace kept in a directory of testdata, for several archives to
// share, is named by a section of its own; the archive's files are
// written over it:
//
//	-- @fixture DIR --
//	(empty; testdata/DIR is copied into the root first)
//
// The workspace root appears as $ROOT in answers, and $ROOT in a call's
// arguments stands for it; the Go toolchain's version (runtime.Version, the
// go command running the test) appears as $GOVERSION, and so does the Go
// that built gopls (make builds it with the Go in use); gopls's version,
// where an answer names it, appears as $GOPLSVERSION, so that the goldens
// hold for every gopls the tests run (GOPLSMCP_TEST_GOPLS). With -update the
// .text and .json sections are rewritten from the answers; review the diff. After the script, every
// workspace file must be on disk exactly as the archive and its writes
// left it: no tool may write, but for what .disk sections say.
func TestGolden(t *testing.T) {
	archives, err := filepath.Glob("../testdata/golden/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(archives) == 0 {
		t.Fatal("no archives in testdata/golden")
	}
	var ran atomic.Int64
	t.Run("archives", func(t *testing.T) {
		for _, path := range archives {
			name := strings.TrimSuffix(filepath.Base(path), ".txtar")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ran.Add(1)
				runGolden(t, path)
			})
		}
	})
	if ran.Load() == 0 {
		// -run chose none (make test-gopls-compat chooses some by name).
		t.Skip("no archive matches -run")
	}
	// The archives' answers, all together, by tool (see lean_test.go):
	// a ratio over all of them, which a few archives chosen by -run do not
	// make.
	if int(ran.Load()) < len(archives) {
		return
	}
	checkLeanTools(t)
}

// goldenSetups prepare the stack of the archives (by name) that need more
// than a root, such as an environment for gopls built for the run, and
// name what else answers must show normalized (old, new pairs for a
// strings.Replacer). The stack they return must offer every tool the
// archive calls.
var goldenSetups = map[string]func(t *testing.T, root string) (sc stackConfig, normalize []string){}

// step is one call of an archive's script, or a change on disk.
type step struct {
	name string
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`

	section *txtar.File
	// write or delete, for a change on disk to path; disk, for a check
	// of path's content.
	write, delete, disk bool
	path                string
}

func runGolden(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root := realTempDir(t)
	var steps []step
	sections := map[string]*txtar.File{}
	// want is what the workspace must hold at the end.
	want := map[string][]byte{}
	for _, f := range ar.Files {
		if dir, ok := strings.CutPrefix(f.Name, "@fixture "); ok {
			copyFixture(t, filepath.Join("..", "testdata", filepath.FromSlash(dir)), root, want)
		}
	}
	for i := range ar.Files {
		f := &ar.Files[i]
		if strings.HasPrefix(f.Name, "@fixture ") {
			continue
		}
		if !strings.HasPrefix(f.Name, "@") {
			writeWorkspaceFile(t, root, f.Name, f.Data)
			want[f.Name] = f.Data
			continue
		}
		sections[f.Name] = f
		head, path, _ := strings.Cut(f.Name, " ")
		switch {
		case strings.HasSuffix(head, ".call"):
			s := step{name: strings.TrimSuffix(strings.TrimPrefix(head, "@"), ".call"), section: f}
			data := bytes.ReplaceAll(f.Data, []byte("$ROOT"), []byte(root))
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			steps = append(steps, s)
		case strings.HasSuffix(head, ".write") || strings.HasSuffix(head, ".delete") || strings.HasSuffix(head, ".disk"):
			if path == "" {
				t.Fatalf("%s: name the file, as -- %s PATH --", f.Name, head)
			}
			s := step{name: f.Name, section: f, path: path, write: strings.HasSuffix(head, ".write"),
				delete: strings.HasSuffix(head, ".delete"), disk: strings.HasSuffix(head, ".disk")}
			if s.delete {
				delete(want, path)
			} else {
				want[path] = f.Data
			}
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		t.Fatalf("%s has no @NAME.call sections", path)
	}

	// Every archive may call gopls mcp's optional tools.
	sc := stackConfig{bridge: bridge.Config{Tools: bridge.OptionalTools}}
	var extra []string
	if setup := goldenSetups[strings.TrimSuffix(filepath.Base(path), ".txtar")]; setup != nil {
		sc, extra = setup(t, root)
	}
	st := startStackOf(t, root, sc)
	c := st.client
	// A bound against a hang, not a speed check: go_vulncheck reads the
	// whole standard library, which took 139 s under a load of 46 on two
	// cores, past the two minutes this once was.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	schemas := outputSchemas(t, ctx, c)
	var rewritten []txtar.File
	gopls := st.lsp.GoplsBuild()
	normalize := strings.NewReplacer(append([]string{root, "$ROOT", runtime.Version(), "$GOVERSION",
		"gopls " + gopls.Version, "gopls $GOPLSVERSION", `"gopls": "` + gopls.Version + `"`, `"gopls": "$GOPLSVERSION"`,
		"built with " + gopls.GoVersion, "built with $GOVERSION", `"goplsGo": "` + gopls.GoVersion + `"`, `"goplsGo": "$GOVERSION"`}, extra...)...).Replace
	for _, s := range steps {
		if s.disk {
			got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.path)))
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			sec := *s.section
			if *update {
				sec.Data, want[s.path] = got, got
			} else if diff := cmp.Diff(string(s.section.Data), string(got)); diff != "" {
				t.Errorf("%s: on disk (-want +got):\n%s", s.name, diff)
			}
			rewritten = append(rewritten, sec)
			continue
		}
		if s.write || s.delete {
			if s.write {
				writeWorkspaceFile(t, root, s.path, s.section.Data)
			} else if err := os.Remove(filepath.Join(root, filepath.FromSlash(s.path))); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			rewritten = append(rewritten, *s.section)
			continue
		}
		res, err := c.CallTool(ctx, s.Tool, s.Args)
		if err != nil {
			t.Fatalf("%s: %s: %v", s.name, s.Tool, err)
		}
		text := res.Text()
		if res.IsError {
			text = "ERROR: " + text
			if len(res.StructuredContent) > 0 {
				t.Errorf("%s: %s: a tool error has structuredContent %s; it must be the message alone", s.name, s.Tool, res.StructuredContent)
			}
		} else {
			if err := validateOutput(schemas[s.Tool], res.StructuredContent); err != nil {
				t.Errorf("%s: %s: structuredContent does not match the output schema: %v", s.name, s.Tool, err)
			}
			checkLean(t, s.name, s.Tool, text, res.StructuredContent)
			checkFacts(t, s.name, s.Tool, s.Args, text, res.StructuredContent)
		}
		got := map[string]string{".text": normalize(text) + "\n"}
		if len(res.StructuredContent) > 0 {
			var buf bytes.Buffer
			if err := json.Indent(&buf, res.StructuredContent, "", "  "); err != nil {
				t.Fatal(err)
			}
			got[".json"] = normalize(buf.String()) + "\n"
		}
		rewritten = append(rewritten, *s.section)
		for _, suffix := range []string{".text", ".json"} {
			key := "@" + s.name + suffix
			g, ok := got[suffix]
			if ok {
				rewritten = append(rewritten, txtar.File{Name: key, Data: []byte(g)})
			}
			if *update {
				continue
			}
			sec := sections[key]
			if !ok {
				if sec != nil {
					t.Errorf("%s: %s answered no structuredContent, but the archive has a %s section; run go test ./bridge -run TestGolden -update and review the diff", s.name, s.Tool, key)
				}
				continue
			}
			if sec == nil {
				t.Errorf("%s: no %s section; run go test ./bridge -run TestGolden -update and review the diff", s.name, key)
				continue
			}
			if diff := cmp.Diff(string(sec.Data), got[suffix]); diff != "" {
				t.Errorf("%s: %s %v (-want +got):\n%s", s.name, s.Tool, s.Args, diff)
			}
		}
	}

	// No tool may write to the workspace.
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		data, ok := want[rel]
		if !ok {
			t.Errorf("a tool created %s in the workspace", rel)
			return nil
		}
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("workspace file %s changed on disk (err %v)", rel, err)
		}
		delete(want, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range want {
		t.Errorf("workspace file %s was removed", rel)
	}
	if *update {
		out := &txtar.Archive{Comment: ar.Comment}
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "@") || strings.HasPrefix(f.Name, "@fixture ") {
				out.Files = append(out.Files, f)
			}
		}
		out.Files = append(out.Files, rewritten...)
		if err := os.WriteFile(path, txtar.Format(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// outputSchemas returns each tool's output schema, resolved, from
// tools/list.
func outputSchemas(t *testing.T, ctx context.Context, c *mcp.Client) map[string]*jsonschema.Resolved {
	t.Helper()
	var list struct {
		Tools []struct {
			Name         string             `json:"name"`
			OutputSchema *jsonschema.Schema `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := c.Call(ctx, "tools/list", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		if tool.OutputSchema == nil {
			t.Fatalf("tool %s has no output schema", tool.Name)
		}
		r, err := tool.OutputSchema.Resolve(nil)
		if err != nil {
			t.Fatalf("tool %s: resolving its output schema: %v", tool.Name, err)
		}
		out[tool.Name] = r
	}
	return out
}

func validateOutput(schema *jsonschema.Resolved, structured json.RawMessage) error {
	if schema == nil {
		return errors.New("unknown tool")
	}
	var v any
	if err := json.Unmarshal(structured, &v); err != nil {
		return err
	}
	return schema.Validate(v)
}

// copyFixture copies the workspace in dir into root, and records each
// file's content in want.
func copyFixture(t *testing.T, dir, root string, want map[string][]byte) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeWorkspaceFile(t, root, filepath.ToSlash(rel), data)
		want[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatalf("fixture %s: %v", dir, err)
	}
}

func writeWorkspaceFile(t *testing.T, root, name string, data []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// realTempDir is a temporary directory named without symbolic links, as
// goplsmcp names its root.
func realTempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// startStack runs the whole server in-process on root — real gopls, real
// bridge, real MCP session over pipes — and returns an initialized client.
func startStack(t testing.TB, root string) *mcp.Client {
	t.Helper()
	return startStackOf(t, root, stackConfig{}).client
}

func init() {
	// The rename of a generic method is applied.
	goldenSetups["go127_rename"] = func(t *testing.T, root string) (stackConfig, []string) {
		return stackConfig{bridge: bridge.Config{AllowWrite: true}}, nil
	}
}
