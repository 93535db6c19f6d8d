package decl

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDocStartLineEnd(t *testing.T) {
	const text = `package p

// F is documented.
func F() {}

func G() {}

// V is documented.
var V = 1 // line comment

var (
	// W is documented.
	W = 2 // W's line comment
	X = 3
)
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", text, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	at := func(p token.Pos) string {
		t.Helper()
		line, _, _ := strings.Cut(text[fset.Position(p).Offset:], "\n")
		return line
	}
	var got []string
	for _, d := range f.Decls {
		got = append(got, "start: "+at(DocStart(d)))
		if g, ok := d.(*ast.GenDecl); ok {
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				end := LineEnd(v.End(), v.Comment)
				got = append(got, "end: "+text[fset.Position(v.Pos()).Offset:fset.Position(end).Offset])
			}
		}
	}
	want := []string{
		"start: // F is documented.",
		"start: func G() {}",
		"start: // V is documented.",
		"end: V = 1 // line comment",
		"start: var (",
		"end: W = 2 // W's line comment",
		"end: X = 3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}
