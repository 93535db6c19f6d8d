package symbol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		sym     string
		parts   []string
		recv    bool
		wantErr string
	}{
		{sym: "Name", parts: []string{"Name"}},
		{sym: " pkg.Name ", parts: []string{"pkg", "Name"}},
		{sym: "pkg.Type.Method", parts: []string{"pkg", "Type", "Method"}},
		{sym: "(*Type).Method", parts: []string{"Type", "Method"}, recv: true},
		{sym: "(Type).Method", parts: []string{"Type", "Method"}, recv: true},
		{sym: "(*pkg.Type).Method", parts: []string{"pkg", "Type", "Method"}, recv: true},
		{sym: "(*Box[T]).Get", parts: []string{"Box", "Get"}, recv: true},
		{sym: "(*Type.Method", wantErr: "unclosed parenthesis"},
		{sym: "(*Type)Method", wantErr: "is not of the form"},
		{sym: "(*Type)", wantErr: "is not of the form"},
		{sym: "a.b.c.d", wantErr: "too many parts"},
		{sym: "func", wantErr: "is not of the form"},
		{sym: "a\u2028b", wantErr: "is not of the form"},
		{sym: "Box[T.Get", wantErr: "is not of the form"},
	}
	for _, tt := range tests {
		parts, recv, err := Split(tt.sym)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Split(%q) error = %v, want one saying %q", tt.sym, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Split(%q): %v", tt.sym, err)
			continue
		}
		if diff := cmp.Diff(tt.parts, parts); diff != "" || recv != tt.recv {
			t.Errorf("Split(%q) = %q, %v; want recv %v (-want +got):\n%s", tt.sym, parts, recv, tt.recv, diff)
		}
	}
}

func TestReadings(t *testing.T) {
	tests := []struct {
		parts []string
		recv  bool
		want  []Ref
	}{
		{parts: []string{"N"}, want: []Ref{{Name: "N"}}},
		{parts: []string{"a", "N"}, want: []Ref{{Pkg: "a", Name: "N"}, {Type: "a", Name: "N"}}},
		{parts: []string{"T", "M"}, recv: true, want: []Ref{{Type: "T", Name: "M"}}},
		{parts: []string{"p", "T", "M"}, want: []Ref{{Pkg: "p", Type: "T", Name: "M"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Readings(tt.parts, tt.recv)); diff != "" {
			t.Errorf("Readings(%q, %v) (-want +got):\n%s", tt.parts, tt.recv, diff)
		}
	}
}

// parse parses text as the file path of a package.
func parse(t *testing.T, path, text string) *File {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, text, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return &File{Path: path, Text: text, Fset: fset, AST: f}
}

const base = `package p

type Base struct{ Field int }

func (b *Base) Hello() {}

// Wide has a rune of two UTF-16 units and four bytes before its name.
var 𝔸, Wide = 1, 2

type I interface{ Do() }

type Derived struct {
	*Base
	I
}

type Outer struct{ Derived }

func Free() {}
`

func TestDecls(t *testing.T) {
	pkg := &Package{Dir: "/p", Name: "p", Files: []*File{parse(t, "/p/p.go", base)}}
	tests := []struct {
		ref  Ref
		want []Decl
	}{
		{ref: Ref{Name: "Free"}, want: []Decl{{Path: "/p/p.go", Line: 18, Col: 5, At: place.Pos{Line: 19, Column: 6}, Desc: "func Free"}}},
		{ref: Ref{Name: "Base"}, want: []Decl{{Path: "/p/p.go", Line: 2, Col: 5, At: place.Pos{Line: 3, Column: 6}, Desc: "type Base"}}},
		{ref: Ref{Type: "Base", Name: "Hello"}, want: []Decl{{Path: "/p/p.go", Line: 4, Col: 15, At: place.Pos{Line: 5, Column: 16}, Desc: "method Base.Hello"}}},
		{ref: Ref{Type: "Base", Name: "Field"}, want: []Decl{{Path: "/p/p.go", Line: 2, Col: 18, At: place.Pos{Line: 3, Column: 19}, Desc: "field Base.Field"}}},
		{ref: Ref{Type: "I", Name: "Do"}, want: []Decl{{Path: "/p/p.go", Line: 9, Col: 18, At: place.Pos{Line: 10, Column: 19}, Desc: "method I.Do"}}},
		// 𝔸 is two UTF-16 units: the column counts them, not bytes.
		{ref: Ref{Name: "Wide"}, want: []Decl{{Path: "/p/p.go", Line: 7, Col: 8, At: place.Pos{Line: 8, Column: 11}, Desc: "var Wide"}}},
		{ref: Ref{Name: "Hello"}},
		{ref: Ref{Type: "Derived", Name: "Hello"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, pkg.Decls(tt.ref)); diff != "" {
			t.Errorf("Decls(%+v) (-want +got):\n%s", tt.ref, diff)
		}
	}
}

func TestPromoted(t *testing.T) {
	pkg := &Package{Dir: "/p", Name: "p", Files: []*File{parse(t, "/p/p.go", base)}}
	// Every embedded type here is of pkg itself.
	local := func(pkg *Package, _ *File, x ast.Expr) (*Package, string) {
		id, ok := BaseType(x).(*ast.Ident)
		if !ok {
			return nil, ""
		}
		return pkg, id.Name
	}
	tests := []struct {
		typ, name string
		want      []Decl
	}{
		{typ: "Derived", name: "Hello", want: []Decl{{Path: "/p/p.go", Line: 4, Col: 15, At: place.Pos{Line: 5, Column: 16}, Desc: "method Base.Hello", Via: []string{"Base"}}}},
		{typ: "Outer", name: "Hello", want: []Decl{{Path: "/p/p.go", Line: 4, Col: 15, At: place.Pos{Line: 5, Column: 16}, Desc: "method Base.Hello", Via: []string{"Derived", "Base"}}}},
		{typ: "Outer", name: "Do", want: []Decl{{Path: "/p/p.go", Line: 9, Col: 18, At: place.Pos{Line: 10, Column: 19}, Desc: "method I.Do", Via: []string{"Derived", "I"}}}},
		{typ: "Outer", name: "Missing"},
		// A type's own members are not promoted ones.
		{typ: "Base", name: "Hello"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Promoted(pkg, tt.typ, tt.name, local)); diff != "" {
			t.Errorf("Promoted(%s, %s) (-want +got):\n%s", tt.typ, tt.name, diff)
		}
	}
}

func TestImportNames(t *testing.T) {
	f := parse(t, "/q/q.go", `package q

import (
	"fmt"
	yaml "gopkg.in/yaml.v3"
	"example.com/mod/v2"
	"github.com/mattn/go-isatty"
	"github.com/x/client-go"
	_ "embed"
	. "strings"
)
`)
	got := map[string]string{}
	for name, imp := range ImportNames(f.AST) {
		got[name] = imp.Path.Value
	}
	want := map[string]string{
		"fmt":    `"fmt"`,
		"yaml":   `"gopkg.in/yaml.v3"`,
		"mod":    `"example.com/mod/v2"`,
		"isatty": `"github.com/mattn/go-isatty"`,
		"client": `"github.com/x/client-go"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ImportNames (-want +got):\n%s", diff)
	}
}
