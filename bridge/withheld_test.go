package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideUse is a file of the workspace that uses declarations gopls
// reaches outside the root: sub through a committed directory link, ext
// through a committed replace.
const outsideUse = `package leak

import (
	"example.com/ext"
	"example.com/shapes/sub"
)

var V sub.HT

func Use() string {
	return sub.Hidden("k") + sub.HiddenConst + ext.Ext(1) + ext.ExtConst + V.M()
}

func Calls() string {
	return sub.Hidden( "x" ) + ext.Ext( 2 )
}
`

// outsideSecret marks every text of the declarations outside the root.
const outsideSecret = "SECRETc0ffee"

// outsideWorkspace is testdata/example with a directory link sub to a
// package outside the root, a replace of example.com/ext by a module
// outside it, and leak/leak.go using both.
func outsideWorkspace(t *testing.T) string {
	t.Helper()
	root := exampleRoot(t)
	out := filepath.Join(realTempDir(t), "outside")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "_S", outsideSecret)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(out, "pkg", "pkg.go"), `// Package sub lives outside the root. DOC_S
package sub

// Hidden is declared outside the root. DOC_S
func Hidden(keyS string) string { return "" }

// HiddenConst is outside. DOC_S
const HiddenConst = "VALUE_S"

// HT is a type outside. DOC_S
type HT struct {
	// FieldS is a field. DOC_S
	FieldS int
}

// M is a method. DOC_S
func (HT) M() string { return "" }
`)
	write(filepath.Join(out, "ext", "go.mod"), "module example.com/ext\n\ngo 1.22\n")
	write(filepath.Join(out, "ext", "ext.go"), `// Package ext lives outside the root. DOC_S
package ext

// Ext is outside. DOC_S
func Ext(paramS int) string { return "" }

// ExtConst is outside. DOC_S
const ExtConst = "VALUE_S"
`)
	if err := os.Symlink(filepath.Join(out, "pkg"), filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "go.mod"), string(gomod)+"\nrequire example.com/ext v0.0.0\n\nreplace example.com/ext => "+filepath.Join(out, "ext")+"\n")
	write(filepath.Join(root, "leak", "leak.go"), outsideUse)
	return root
}

// at addresses word's occurrence after anchor in leak/leak.go, offset
// bytes on, as go vet numbers lines and columns (from 1).
func at(t *testing.T, anchor, word string, offset int) map[string]any {
	t.Helper()
	for i, line := range strings.Split(outsideUse, "\n") {
		if j := strings.Index(line, anchor); j >= 0 {
			k := strings.Index(line[j:], word)
			return map[string]any{"file": "leak/leak.go", "line": i + 1, "column": j + k + offset + 1}
		}
	}
	t.Fatalf("%q is not in leak/leak.go", anchor)
	return nil
}

// freshUse is a file of another package of the workspace that imports
// neither sub nor ext nor shapes yet: completing their members would
// import them.
const freshUse = `package fresh

func F() string {
	return ext.Ex + sub.Hid + shapes.TotalAr
}
`

// TestOutsideSaysWithheld: an answer that leaves out the text of a
// declaration gopls found outside the root — through a committed
// directory link (sub) or a committed replace (example.com/ext) — says so
// in one sentence that names which link or replace leads there, and
// shows none of that text; what needs no declaration's text from there
// says nothing of it. The workspace's own code is answered in full, and
// completing a member of a workspace package not imported yet withholds
// nothing.
func TestOutsideSaysWithheld(t *testing.T) {
	root := outsideWorkspace(t)
	writeWorkspaceFile(t, root, "fresh/fresh.go", []byte(freshUse))
	c := startStack(t, root)
	fresh := func(anchor, word string, offset int) map[string]any {
		t.Helper()
		for i, line := range strings.Split(freshUse, "\n") {
			if j := strings.Index(line, anchor); j >= 0 {
				return map[string]any{"file": "fresh/fresh.go", "line": i + 1, "column": j + strings.Index(line[j:], word) + offset + 1}
			}
		}
		t.Fatalf("%q is not in fresh/fresh.go", anchor)
		return nil
	}
	with := func(m map[string]any, k string, v any) map[string]any {
		m[k] = v
		return m
	}
	const (
		link    = "outside the workspace root, reached through the directory link sub"
		replace = "outside the workspace root, reached through the replace of example.com/ext in go.mod"
		both    = "outside the workspace root, reached through the directory link sub and the replace of example.com/ext in go.mod"
		none    = "" // no declaration's text is left out: nothing to say
	)
	calls := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"go_describe", with(at(t, "return sub.Hidden(", "Hidden", 0), "detailed", true), link},
		{"go_describe", with(at(t, "sub.HiddenConst", "HiddenConst", 0), "detailed", true), link},
		{"go_describe", with(at(t, "ext.ExtConst", "ExtConst", 0), "detailed", true), replace},
		{"go_describe", with(at(t, "ext.Ext(1)", "Ext", 0), "detailed", true), replace},
		{"go_describe", with(at(t, "V.M()", "M", 0), "detailed", true), link},
		{"go_describe", with(at(t, "return sub.Hidden(", "sub", 0), "detailed", true), link},
		{"go_describe", with(at(t, "ext.Ext(1)", "ext", 0), "detailed", true), replace},
		{"go_describe", map[string]any{"file": "leak/leak.go", "symbol": "ext.Ext"}, replace},
		{"go_describe", map[string]any{"file": "leak/leak.go", "symbol": "sub.HiddenConst", "detailed": true}, link},
		{"go_signature", at(t, `sub.Hidden( "x"`, "(", 1), link},
		{"go_signature", at(t, `ext.Ext( 2`, "(", 1), replace},
		{"go_complete", at(t, "sub.HiddenConst", "HiddenConst", 3), link},
		{"go_complete", at(t, "ext.ExtConst", "ExtConst", 3), replace},
		{"go_complete", at(t, "V.M()", "M", 0), link},
		{"go_complete", fresh("ext.Ex", "Ex", 2), replace},
		{"go_complete", fresh("sub.Hid", "Hid", 3), link},
		{"go_definition", at(t, "return sub.Hidden(", "Hidden", 0), link},
		{"go_definition", at(t, "ext.Ext(1)", "Ext", 0), replace},
		{"go_definition", with(at(t, "var V sub.HT", "V", 0), "kind", "type"), link},
		{"go_source", map[string]any{"file": "leak/leak.go", "symbol": "sub.Hidden"}, link},
		{"go_source", at(t, "return sub.Hidden(", "Hidden", 0), link},
		{"go_source", at(t, "ext.Ext(1)", "Ext", 0), replace},
		{"go_file_context", map[string]any{"file": "leak/leak.go", "detailed": true}, both},
		{"go_file_context", map[string]any{"file": "leak/leak.go"}, both},
		{"go_symbol_references", at(t, "return sub.Hidden(", "Hidden", 0), link},
		{"go_call_hierarchy", with(at(t, "func Use", "Use", 0), "direction", "outgoing"), both},
		{"go_package_api", map[string]any{"packagePaths": []string{"example.com/ext"}}, replace},
		{"go_package_api", map[string]any{"packagePaths": []string{"example.com/shapes/sub"}}, link},
		{"go_search", map[string]any{"query": "Hidden", "detailed": true}, link},
		{"go_search", map[string]any{"query": "Ext", "scope": "all", "detailed": true}, both},
		// What answers with no declaration's text from outside.
		{"go_type_hierarchy", at(t, "var V sub.HT", "HT", 0), none},
		{"go_implementations", at(t, "var V sub.HT", "HT", 0), none},
		{"go_symbols", map[string]any{"file": "leak/leak.go", "detailed": true}, none},
		{"go_tokens", map[string]any{"file": "leak/leak.go"}, none},
		{"go_diagnostics", map[string]any{"files": []string{"leak/leak.go"}}, none},
		{"go_package_graph", map[string]any{"package": "example.com/shapes/leak"}, none},
	}
	for _, call := range calls {
		res, err := c.CallTool(testCtx(t), call.tool, call.args)
		if err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(call.args)
		answer := res.Text() + "\n" + string(res.StructuredContent)
		if strings.Contains(answer, outsideSecret) {
			t.Errorf("%s %s shows a declaration outside the root:\n%.1500s", call.tool, args, answer)
		}
		switch {
		case call.want == none && strings.Contains(answer, "withheld"):
			t.Errorf("%s %s says something is withheld, which needs no text from outside:\n%.1500s", call.tool, args, answer)
		case call.want != none && !strings.Contains(res.Text(), call.want):
			t.Errorf("%s %s does not say, naming what leads there, that it withheld text %s:\n%.1500s", call.tool, args, call.want, answer)
		}
	}

	// The workspace's own declarations are shown as ever.
	for _, call := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"go_describe", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape", "detailed": true}, "Shape is a closed plane figure"},
		{"go_signature", map[string]any{"file": "main.go", "line": 13, "column": 29}, "Summary(list []shapes.Shape) string"},
		{"go_search", map[string]any{"query": "TotalArea"}, "func TotalArea"},
		{"go_complete", map[string]any{"file": "main.go", "line": 13, "column": 23}, "Summary func(list []shapes.Shape) string"},
		{"go_complete", fresh("shapes.TotalAr", "TotalAr", 7), `TotalArea func(shapes ...Shape) float64, adds import "example.com/shapes/shapes"`},
		{"go_file_context", map[string]any{"file": "main.go"}, "type Shape interface { Area() float64; Perimeter() float64 }"},
	} {
		res, err := c.CallTool(testCtx(t), call.tool, call.args)
		if err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(call.args)
		if answer := res.Text(); !strings.Contains(answer, call.want) || strings.Contains(answer, "withheld") {
			t.Errorf("%s %s about the workspace's own code: want %q, nothing withheld:\n%.1500s", call.tool, args, call.want, answer)
		}
	}
}

// TestGoWorkUseSaysWithheld: a go.work use of a module outside the root
// is named in the sentence, as the link and the replace are.
func TestGoWorkUseSaysWithheld(t *testing.T) {
	root := realTempDir(t)
	lib := filepath.Join(realTempDir(t), "lib")
	for path, text := range map[string]string{
		filepath.Join(lib, "go.mod"):   "module example.com/lib\n\ngo 1.26\n",
		filepath.Join(lib, "lib.go"):   "package lib\n\n// Func is outside. DOC_S\nfunc Func(paramS int) string { return \"\" }\n",
		filepath.Join(root, "go.mod"):  "module example.com/w\n\ngo 1.26\n",
		filepath.Join(root, "go.work"): "go 1.26\n\nuse (\n\t.\n\t" + lib + "\n)\n",
		filepath.Join(root, "main.go"): "package main\n\nimport \"example.com/lib\"\n\nfunc main() { _ = lib.Func(1) }\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "_S", outsideSecret)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startStack(t, root)
	at := map[string]any{"file": "main.go", "line": 5, "column": 24} // Func
	want := "outside the workspace root, reached through the go.work use " + lib
	for _, tool := range []string{"go_describe", "go_definition", "go_source"} {
		res, err := c.CallTool(testCtx(t), tool, at)
		if err != nil {
			t.Fatal(err)
		}
		answer := res.Text() + "\n" + string(res.StructuredContent)
		if strings.Contains(answer, outsideSecret) || !strings.Contains(res.Text(), want) {
			t.Errorf("%s of lib.Func, reached through go.work: want %q and no text from outside:\n%s", tool, want, answer)
		}
	}
}
