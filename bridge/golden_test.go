package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/golden/*.txtar")

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
//	the structuredContent, indented
//
// The workspace root appears as $ROOT in answers, and the Go toolchain's
// version (runtime.Version, the go command running the test) as
// $GOVERSION. With -update the .text
// and .json sections are rewritten from the answers; review the diff. After
// the script, every workspace file must be unchanged on disk.
func TestGolden(t *testing.T) {
	archives, err := filepath.Glob("../testdata/golden/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(archives) == 0 {
		t.Fatal("no archives in testdata/golden")
	}
	for _, path := range archives {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runGolden(t, path)
		})
	}
}

// step is one call of an archive's script.
type step struct {
	name string
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

func runGolden(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root := realTempDir(t)
	var steps []step
	sections := map[string]*txtar.File{}
	for i := range ar.Files {
		f := &ar.Files[i]
		if !strings.HasPrefix(f.Name, "@") {
			p := filepath.Join(root, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		sections[f.Name] = f
		if name, ok := strings.CutSuffix(f.Name, ".call"); ok {
			s := step{name: strings.TrimPrefix(name, "@")}
			if err := json.Unmarshal(f.Data, &s); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		t.Fatalf("%s has no @NAME.call sections", path)
	}

	c := startStack(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var rewritten []txtar.File
	normalize := strings.NewReplacer(root, "$ROOT", runtime.Version(), "$GOVERSION").Replace
	for _, s := range steps {
		res, err := c.CallTool(ctx, s.Tool, s.Args)
		if err != nil {
			t.Fatalf("%s: %s: %v", s.name, s.Tool, err)
		}
		text := res.Text()
		if res.IsError {
			text = "ERROR: " + text
		}
		got := map[string]string{".text": normalize(text) + "\n"}
		if len(res.StructuredContent) > 0 {
			var buf bytes.Buffer
			if err := json.Indent(&buf, res.StructuredContent, "", "  "); err != nil {
				t.Fatal(err)
			}
			got[".json"] = normalize(buf.String()) + "\n"
		}
		rewritten = append(rewritten, *sections["@"+s.name+".call"])
		for _, suffix := range []string{".text", ".json"} {
			key := "@" + s.name + suffix
			if g, ok := got[suffix]; ok {
				rewritten = append(rewritten, txtar.File{Name: key, Data: []byte(g)})
			}
			if *update {
				continue
			}
			sec := sections[key]
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
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "@") {
			continue
		}
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Name)))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("workspace file %s changed on disk (err %v)", f.Name, err)
		}
	}
	if *update {
		out := &txtar.Archive{Comment: ar.Comment}
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "@") {
				out.Files = append(out.Files, f)
			}
		}
		out.Files = append(out.Files, rewritten...)
		if err := os.WriteFile(path, txtar.Format(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// realTempDir is a temporary directory named without symbolic links, as
// goplsmcp names its root.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// startStack runs the whole server in-process on root — real gopls, real
// bridge, real MCP session over pipes — and returns an initialized client.
func startStack(t *testing.T, root string) *mcp.Client {
	t.Helper()
	gopls, err := filepath.Abs("../bin/gopls")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gopls); err != nil {
		t.Fatalf("%s is missing: run make build (or make test) first", gopls)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := lspclient.Start(ctx, lspclient.Options{Gopls: gopls, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	br, err := bridge.New(bridge.Config{Root: root, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer("goplsmcp", "test", nil)
	if err := br.Register(srv); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := <-served; err != nil {
			t.Errorf("serving: %v", err)
		}
		client.Close()
	})
	c := mcp.NewClient(outR, inW)
	if _, err := c.Initialize(ctx, "2025-11-25"); err != nil {
		t.Fatal(fmt.Errorf("initialize: %w", err))
	}
	return c
}
