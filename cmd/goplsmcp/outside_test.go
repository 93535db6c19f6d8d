package main

import (
	"encoding/json"
	"fmt"
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

// freshUse is a file of another package of the workspace that imports
// neither sub nor ext yet: completing their members would import them.
const freshUse = `package fresh

func F() string {
	return ext.Ex + sub.Hid + shapes.TotalAr
}
`

// TestOutsideDeclarationsWithheld: what gopls writes about a declaration
// it found outside the root — a constant's value, a doc comment, a
// signature, the members of a type, its name in a search — is in no
// answer of any tool, whether gopls got there through a committed
// directory link or a committed replace; the answer says what it withheld.
// The same questions about the workspace's own code are answered in full.
func TestOutsideDeclarationsWithheld(t *testing.T) {
	t.Parallel()
	root := exampleRoot(t)
	out := filepath.Join(t.TempDir(), "outside")
	secret := "SECRET" + randomHex(t)
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(out, "pkg", "pkg.go"), strings.ReplaceAll(`// Package sub lives outside the root. DOC_S
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
`, "_S", secret))
	write(filepath.Join(out, "ext", "go.mod"), "module example.com/ext\n\ngo 1.22\n")
	write(filepath.Join(out, "ext", "ext.go"), strings.ReplaceAll(`// Package ext lives outside the root. DOC_S
package ext

// Ext is outside. DOC_S
func Ext(paramS int) string { return "" }

// ExtConst is outside. DOC_S
const ExtConst = "VALUE_S"
`, "_S", secret))
	if err := os.Symlink(filepath.Join(out, "pkg"), filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "go.mod"), string(gomod)+"\nrequire example.com/ext v0.0.0\n\nreplace example.com/ext => "+filepath.Join(out, "ext")+"\n")
	write(filepath.Join(root, "leak", "leak.go"), outsideUse)
	write(filepath.Join(root, "fresh", "fresh.go"), freshUse)

	// in addresses word's occurrence after anchor in file (of text).
	in := func(file, text, anchor, word string, offset int) string {
		t.Helper()
		for i, line := range strings.Split(text, "\n") {
			if j := strings.Index(line, anchor); j >= 0 {
				k := strings.Index(line[j:], word)
				return fmt.Sprintf(`"file":%q,"line":%d,"column":%d`, file, i+1, j+k+offset+1)
			}
		}
		t.Fatalf("%q is not in %s", anchor, file)
		return ""
	}
	at := func(anchor, word string, offset int) string {
		t.Helper()
		return in("leak/leak.go", outsideUse, anchor, word, offset)
	}
	fresh := func(anchor, word string, offset int) string {
		t.Helper()
		return in("fresh/fresh.go", freshUse, anchor, word, offset)
	}
	const withheld = "withheld"
	calls := []struct{ tool, args, want string }{
		{"go_describe", "{" + at("return sub.Hidden(", "Hidden", 0) + `,"detailed":true}`, withheld},
		{"go_describe", "{" + at("sub.HiddenConst", "HiddenConst", 0) + `,"detailed":true}`, withheld},
		{"go_describe", "{" + at("ext.ExtConst", "ExtConst", 0) + `,"detailed":true}`, withheld},
		{"go_describe", "{" + at("ext.Ext(1)", "Ext", 0) + `,"detailed":true}`, withheld},
		{"go_describe", "{" + at("V.M()", "M", 0) + `,"detailed":true}`, withheld},
		{"go_describe", "{" + at("return sub.Hidden(", "sub", 0) + `,"detailed":true}`, withheld},
		{"go_describe", "{" + at("ext.Ext(1)", "ext", 0) + `,"detailed":true}`, withheld},
		{"go_describe", `{"file":"leak/leak.go","symbol":"sub.HiddenConst","detailed":true}`, ""},
		{"go_signature", "{" + at(`sub.Hidden( "x"`, "(", 1) + `,"detailed":true}`, withheld},
		{"go_signature", "{" + at(`ext.Ext( 2`, "(", 1) + `,"detailed":true}`, withheld},
		{"go_complete", "{" + at("sub.HiddenConst", "HiddenConst", 3) + `,"detailed":true}`, withheld},
		{"go_complete", "{" + at("ext.ExtConst", "ExtConst", 3) + `,"detailed":true}`, withheld},
		{"go_complete", "{" + at("V.M()", "M", 0) + `,"detailed":true}`, withheld},
		{"go_complete", "{" + at("+ V.M()", "V", 1) + `,"detailed":true}`, ""},
		// Members of packages not imported yet, found where they are.
		{"go_complete", "{" + fresh("ext.Ex", "Ex", 2) + `,"detailed":true}`, withheld},
		{"go_complete", "{" + fresh("sub.Hid", "Hid", 3) + `,"detailed":true}`, withheld},
		{"go_search", `{"query":"Hidden","detailed":true}`, withheld},
		{"go_search", `{"query":"Ext","scope":"all","detailed":true}`, withheld},
		{"go_search", `{"query":"FieldS","scope":"all","detailed":true}`, ""},
		{"go_symbols", `{"file":"leak/leak.go","detailed":true}`, ""},
		{"go_file_context", `{"file":"leak/leak.go","detailed":true}`, ""},
		{"go_definition", "{" + at("return sub.Hidden(", "Hidden", 0) + "}", ""},
		{"go_symbol_references", "{" + at("return sub.Hidden(", "Hidden", 0) + "}", ""},
		{"go_call_hierarchy", "{" + at("func Use", "Use", 0) + `,"direction":"outgoing"}`, ""},
		{"go_type_hierarchy", "{" + at("var V sub.HT", "HT", 0) + "}", ""},
		{"go_implementations", "{" + at("var V sub.HT", "HT", 0) + "}", ""},
		{"go_diagnostics", `{"files":["leak/leak.go"]}`, ""},
		{"go_package_graph", `{"package":"example.com/shapes/leak"}`, ""},
	}
	s := startSession(t, "--root", root, "--gopls", goplsPath(t))
	for _, c := range calls {
		m := s.request("tools/call", `{"name":`+jsonString(c.tool)+`,"arguments":`+c.args+`}`)
		data, _ := json.Marshal(m)
		answer := string(data)
		if strings.Contains(answer, secret) {
			t.Errorf("%s %s shows a declaration outside the root:\n%.1500s", c.tool, c.args, answer)
		}
		if c.want != "" && !strings.Contains(answer, c.want) {
			t.Errorf("%s %s does not say what it withheld (%q):\n%.1500s", c.tool, c.args, c.want, answer)
		}
	}

	// The workspace's own declarations are shown as ever.
	for _, c := range []struct{ tool, args, want string }{
		{"go_describe", `{"file":"shapes/shapes.go","symbol":"Shape","detailed":true}`, "Shape is a closed plane figure"},
		{"go_describe", `{"file":"shapes/shapes.go","line":31,"column":47,"detailed":true}`, "const math.Pi"},
		{"go_signature", `{"file":"main.go","line":13,"column":29}`, "Summary(list []shapes.Shape) string"},
		{"go_search", `{"query":"TotalArea"}`, "37:6: func TotalArea"},
		{"go_complete", `{"file":"main.go","line":13,"column":23}`, "Summary func(list []shapes.Shape) string"},
		{"go_complete", "{" + fresh("shapes.TotalAr", "TotalAr", 7) + "}", `TotalArea func(shapes ...Shape) float64, adds import`},
	} {
		m := s.request("tools/call", `{"name":`+jsonString(c.tool)+`,"arguments":`+c.args+`}`)
		data, _ := json.Marshal(m)
		if answer := string(data); !strings.Contains(answer, c.want) || strings.Contains(answer, "withheld") {
			t.Errorf("%s %s about the workspace's own code: want %q, nothing withheld:\n%.1500s", c.tool, c.args, c.want, answer)
		}
	}
}
