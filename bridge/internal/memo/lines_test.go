package memo

import (
	"fmt"
	"go/ast"
	"go/parser"
	"strings"
	"testing"
)

// TestMemosFollowTheText checks that the line and parse memos serve a
// file's entry only for the text it was made from, and stay within their
// bounds.
func TestMemosFollowTheText(t *testing.T) {
	var lines Lines
	var trees Trees
	a := "package a\n\nvar X = 1\r\n"
	b := "package a\n\nvar Y = 2\n"
	la := lines.Lines("/w/a.go", a)
	if got := strings.Join(la, "|"); got != "package a||var X = 1|" {
		t.Errorf("lines of a = %q", got)
	}
	if again := lines.Lines("/w/a.go", a); &again[0] != &la[0] {
		t.Error("the same text was split again")
	}
	if lb := lines.Lines("/w/a.go", b); lb[2] != "var Y = 2" {
		t.Errorf("lines after the text changed = %q", lb)
	}

	_, fa, _ := trees.Parse("/w/a.go", a, parser.SkipObjectResolution)
	if _, again, _ := trees.Parse("/w/a.go", a, parser.SkipObjectResolution); again != fa {
		t.Error("the same text was parsed again")
	}
	if _, other, _ := trees.Parse("/w/a.go", a, parser.ParseComments); other == fa {
		t.Error("another mode got the same tree")
	}
	_, fb, _ := trees.Parse("/w/a.go", b, parser.SkipObjectResolution)
	if name := fb.Decls[0].(*ast.GenDecl).Specs[0].(*ast.ValueSpec).Names[0].Name; name != "Y" {
		t.Errorf("the changed text's tree declares %s, want Y", name)
	}

	big := "package big\n\n// " + strings.Repeat("x", maxParsedBytes/8) + "\n"
	for i := range 12 {
		trees.Parse(fmt.Sprintf("/w/big%d.go", i), big, 0)
	}
	if trees.bytes > maxParsedBytes {
		t.Errorf("the parse memo holds %d bytes of source, over its %d", trees.bytes, maxParsedBytes)
	}
}
