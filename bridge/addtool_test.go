package bridge_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// echoTool is a throwaway tool, as a new maintainer would write one: its
// file, and its line in the registry.
const echoTool = `package bridge

import (
	"context"
	"errors"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// EchoInput is the input of go_echo.
type EchoInput struct {
	Message string ` + "`" + `json:"message" jsonschema:"what to echo"` + "`" + `
}

// EchoOutput is the result of go_echo.
type EchoOutput struct {
	Message string ` + "`" + `json:"message" jsonschema:"the message echoed"` + "`" + `
}

// Render implements mcp.Renderer.
func (o *EchoOutput) Render() string { return "echo: " + o.Message }

// echoTool is go_echo's entry in the catalogue (see ToolSpec).
var echoTool = ToolSpec{
	Name:        "go_echo",
	Title:       "Echo",
	Description: "Echo a message back.",
	Instruction: "echo a message.",
	Skill:       "Echo a message",
	Doc:         "the message it was given",
	Summary:     "the message it was given",
	Framing:     []string{` + "`" + `^echo: ` + "`" + `},
	Good:        Sample{Args: ` + "`" + `{"message": "hello"}` + "`" + `, Want: "echo: hello"},
	Bad:         Sample{Args: ` + "`" + `{"message": ""}` + "`" + `, Want: ` + "`" + `^message is empty; pass what to echo$` + "`" + `},
	Questions:   []string{"echo a message back"},
	add:         func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.echo) },
}

func (b *Bridge) echo(ctx context.Context, in *EchoInput) (*EchoOutput, error) {
	if in.Message == "" {
		return nil, errors.New("message is empty; pass what to echo")
	}
	return &EchoOutput{Message: in.Message}, nil
}
`

// TestAddTool proves docs/development.md's "Adding a tool": on a copy of
// the module, a throwaway tool's file and its registry line, then go
// generate, and the tests that enumerate tools pass with it (its samples
// made, its questions ranked, its lines in the instructions, the docs and
// the skill, its place in tools/list, its no-write check). The two budget
// tests are left out: every session pays for the instructions and eager
// definitions, and they are full (TestInstructionsBudget and
// TestEagerToolsSize log the room left), so a real new tool must make
// room in other tools' text.
func TestAddTool(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the module and runs go generate and go test in it")
	}
	module, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gopls := filepath.Join(module, "bin", "gopls")
	if _, err := os.Stat(gopls); err != nil {
		t.Skipf("%s is missing: run make build first", gopls)
	}
	tree := copyModule(t, module)
	if err := os.MkdirAll(filepath.Join(tree, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gopls, filepath.Join(tree, "bin", "gopls")); err != nil {
		t.Fatal(err)
	}

	// The two files a new tool touches.
	writeWorkspaceFile(t, tree, "bridge/echo.go", []byte(echoTool))
	registry := filepath.Join(tree, "bridge", "catalogue.go")
	src, err := os.ReadFile(registry)
	if err != nil {
		t.Fatal(err)
	}
	const last = "\t&closeTool,\n"
	if !bytes.Contains(src, []byte(last)) {
		t.Fatalf("catalogue.go has no line %q to add the tool after", last)
	}
	if err := os.WriteFile(registry, bytes.Replace(src, []byte(last), []byte(last+"\t&echoTool,\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = tree
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in the copy: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("generate", "./bridge", "./cmd/goplsmcp")
	for _, f := range []string{"README.md", "docs/tools.md", "clients/claude/goplsmcp/skills/go-code/SKILL.md", ".interop/catalogue.json", "GOPLSMCP.md", "clients/gemini/goplsmcp/GOPLSMCP.md"} {
		data, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("go_echo")) {
			t.Errorf("go generate left go_echo out of %s", f)
		}
	}
	run("test", "-count=1", "-run", "^(TestOutputSchemas|TestToolSearch|TestInstructions|TestCatalogueFiles|TestToolsListSize|TestApplyDisabled)$", "./bridge")
	run("test", "-count=1", "-run", "^(TestEndToEnd|TestNoWrites|TestClientPackages|TestRulesPrint)$", "./cmd/goplsmcp")
}

// copyModule copies the module's source, docs and fixtures (not .git,
// bin or node_modules) to a temporary directory.
func copyModule(t *testing.T, module string) string {
	t.Helper()
	dst := filepath.Join(realTempDir(t), "module")
	err := filepath.WalkDir(module, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(module, path)
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || rel == "bin") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
