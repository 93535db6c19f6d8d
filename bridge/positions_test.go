package bridge_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOnePlaceForPositions holds positions to one decision: how a
// position or a range is written and read (1-based line, 1-based byte
// column, as go vet prints them) is package place's, so no other code of
// the module formats or parses line:col by hand. It fails on a format or
// scan string with two integer verbs joined by a colon ("%d:%d",
// "-%d:%d", "%v:%v") and on a concatenation of two formatted integers
// around ":" (strconv.Itoa(l) + ":" + strconv.Itoa(c)), in any non-test
// Go file outside bridge/internal/place.
func TestOnePlaceForPositions(t *testing.T) {
	module, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// The check must find what it looks for: a file planted with each
	// kind of violation is reported, line by line.
	planted := `package p
var a = fmt.Sprintf("%s:%d:%d", f, l, c)
var b = fmt.Sprintf("-%d:%d", l, c)
var c = strconv.Itoa(l) + ":" + strconv.Itoa(c)
func f() { fmt.Sscanf(s, "%d:%d", &l, &c) }
var d = fmt.Sprintf("%d: %s", n, s)
var e = fmt.Sprintf("%s:%d", f, l)
`
	want := []string{"p.go:2", "p.go:3", "p.go:4", "p.go:5"}
	if diff := cmp.Diff(want, handMadePositions(t, "p.go", planted)); diff != "" {
		t.Fatalf("the check misreads a planted file (-want +got):\n%s", diff)
	}

	var found []string
	err = filepath.WalkDir(module, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(module, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != module && (d.Name() == "testdata" || d.Name() == "bin" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) || rel == "bridge/internal/place" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found = append(found, handMadePositions(t, rel, string(src))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s writes or reads line:col by hand; use place.Pos, Span or Loc (bridge/internal/place), the one place positions are written", f)
	}
}

// lineColVerbs matches two integer verbs joined by a colon.
var lineColVerbs = regexp.MustCompile(`%[-+# 0-9]*[dv]:%[-+# 0-9]*[dv]`)

// handMadePositions lists, as file:line, where src writes or reads a
// line:col by hand.
func handMadePositions(t *testing.T, file, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	var out []string
	report := func(n ast.Node) {
		out = append(out, file+":"+strconv.Itoa(fset.Position(n.Pos()).Line))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if n.Kind == token.STRING && lineColVerbs.MatchString(n.Value) {
				report(n)
			}
		case *ast.BinaryExpr:
			if n.Op != token.ADD {
				return true
			}
			ops := concatOperands(n)
			for i := 0; i+2 < len(ops); i++ {
				if formatsInt(ops[i]) && isColon(ops[i+1]) && formatsInt(ops[i+2]) {
					report(n)
					return false
				}
			}
			return false
		}
		return true
	})
	return out
}

// concatOperands flattens a chain of + into its operands, in order.
func concatOperands(e ast.Expr) []ast.Expr {
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD {
		return append(concatOperands(b.X), concatOperands(b.Y)...)
	}
	return []ast.Expr{e}
}

// formatsInt reports whether e is a call that writes an integer as text.
func formatsInt(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	switch sel.Sel.Name {
	case "Itoa", "FormatInt", "FormatUint", "Sprint":
		return true
	}
	return false
}

// isColon reports whether e is the string literal ":".
func isColon(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && (lit.Value == `":"` || lit.Value == "`:`")
}
