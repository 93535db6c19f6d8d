package decl

import (
	"go/token"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var src = `package p

// Doer does.
type Doer interface {
	// Do does it.
	Do(n int) error
	hidden()
}

// T is a thing.
type T struct {
	Name string ` + "`json:\"name\"`" + ` // its name
	Doer
	secret int
}

// M is a method.
func (t *T) M(a, b int) (int, error) { return a + b, nil }

const (
	A Kind = iota // first
	B
)

var Long = []string{` + strings.Repeat(`"ééééééééé", `, 12) + `}

var π = "ok"

// Box holds a value.
type Box[T any] struct{ V T }

// Map maps the value: a generic method (Go 1.27).
func (b Box[T]) Map[U any](f func(T) U) Box[U] { return Box[U]{f(b.V)} }

// Keys lists the keys of m.
func Keys[M ~map[K]V, K comparable, V any](m M) []K { return nil }

// As converts v.
func (*T) As[X any, Y interface{ ~int | ~string }](v any) (X, Y) { panic(v) }
`

// files returns the Files of a fake workspace holding src at "p.go", and
// how many times its text was asked for.
func files(tags bool) (*Files, *int) {
	asked := 0
	return NewFiles(Options{Tags: tags, Text: func(path string) (string, bool) {
		asked++
		return src, path == "p.go"
	}}), &asked
}

// at is the position of the first occurrence of name after prefix.
func at(t *testing.T, g *File, prefix, name string) token.Pos {
	t.Helper()
	i := strings.Index(src, prefix)
	if i < 0 {
		t.Fatalf("no %q in the source", prefix)
	}
	i += strings.Index(src[i:], name)
	line := strings.Count(src[:i], "\n")
	col := i - strings.LastIndex(src[:i], "\n") - 1
	return g.Pos(line, len([]rune(src[i-col:i]))) // ASCII before every name asked
}

func TestAt(t *testing.T) {
	fs, _ := files(false)
	g := fs.Get("p.go")
	if g == nil {
		t.Fatal("p.go not parsed")
	}
	tests := []struct {
		prefix, name string
		exportedOnly bool
		want         *Info
	}{
		{"type Doer", "Doer", true, &Info{Name: "Doer", Kind: "type", Sig: "type Doer interface { Do(n int) error; ... }", Doc: "Doer does.\n"}},
		{"type Doer", "Doer", false, &Info{Name: "Doer", Kind: "type", Sig: "type Doer interface { Do(n int) error; hidden() }", Doc: "Doer does.\n"}},
		{"type T", "T", true, &Info{Name: "T", Kind: "type", Sig: "type T struct { Name string; Doer; ... }", Doc: "T is a thing.\n"}},
		{"\tDo(", "Do", false, &Info{Name: "Doer.Do", Kind: "method", Sig: "Doer.Do(n int) error", Doc: "Do does it.\n", Owner: at(t, g, "type Doer", "Doer")}},
		{"\tName", "Name", false, &Info{Name: "T.Name", Kind: "field", Sig: "T.Name string", Doc: "its name\n", Owner: at(t, g, "type T", "T")}},
		{"\tDoer\n", "Doer", false, &Info{Name: "T.Doer", Kind: "field", Sig: "T.Doer (embedded)", Owner: at(t, g, "type T", "T")}},
		{"func (t *T) M", "M", false, &Info{Name: "T.M", Kind: "method", Sig: "func (t *T) M(a, b int) (int, error)", Doc: "M is a method.\n"}},
		{"\tB", "B", false, &Info{Name: "B", Kind: "const", Sig: "const B Kind"}},
		{"\tA Kind", "A", false, &Info{Name: "A", Kind: "const", Sig: "const A Kind = iota", Doc: "first\n"}},
		{"var π", "ok", false, nil},
		{"type Box", "Box", true, &Info{Name: "Box", Kind: "type", Sig: "type Box[T any] struct{ V T }", Doc: "Box holds a value.\n"}},
		{"func (b Box[T]) Map", "Map", false, &Info{Name: "Box.Map", Kind: "method", Sig: "func (b Box[T]) Map[U any](f func(T) U) Box[U]", Doc: "Map maps the value: a generic method (Go 1.27).\n"}},
		{"func Keys", "Keys", false, &Info{Name: "Keys", Kind: "func", Sig: "func Keys[M ~map[K]V, K comparable, V any](m M) []K", Doc: "Keys lists the keys of m.\n"}},
		{"func (*T) As", "As", false, &Info{Name: "T.As", Kind: "method", Sig: "func (*T) As[X any, Y interface{ ~int | ~string }](v any) (X, Y)", Doc: "As converts v.\n"}},
	}
	for _, tt := range tests {
		got := g.At(at(t, g, tt.prefix, tt.name), tt.exportedOnly)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("At(%s after %q, %v) (-want +got):\n%s", tt.name, tt.prefix, tt.exportedOnly, diff)
		}
	}
}

// TestTypeParams renders the type parameters of generic types, functions
// and methods, which gopls's outline leaves out.
func TestTypeParams(t *testing.T) {
	fs, _ := files(false)
	g := fs.Get("p.go")
	for _, tt := range []struct{ prefix, name, want string }{
		{"type Box", "Box", "[T any]"},
		{"func (b Box[T]) Map", "Map", "[U any]"},
		{"func Keys", "Keys", "[M ~map[K]V, K comparable, V any]"},
		{"func (*T) As", "As", "[X any, Y interface{ ~int | ~string }]"},
		{"func (t *T) M", "M", ""},
		{"type T", "T", ""},
		{"\tDo(", "Do", ""},
	} {
		if got := g.TypeParams(at(t, g, tt.prefix, tt.name)); got != tt.want {
			t.Errorf("TypeParams(%s after %q) = %q, want %q", tt.name, tt.prefix, got, tt.want)
		}
	}
}

// TestTags shows struct tags only when asked, and leaves the tree as it
// was: printing hides comments and tags for a moment only.
func TestTags(t *testing.T) {
	for _, tags := range []bool{false, true} {
		fs, _ := files(tags)
		g := fs.Get("p.go")
		p := at(t, g, "type T", "T")
		want := "type T struct { Name string; Doer; secret int }"
		if tags {
			want = "type T struct { Name string `json:\"name\"`; Doer; secret int }"
		}
		for range 2 {
			if got := g.At(p, false).Sig; got != want {
				t.Errorf("tags %v: signature %q, want %q", tags, got, want)
			}
		}
	}
}

// TestLongValue cuts a long value on a rune boundary, in bytes.
func TestLongValue(t *testing.T) {
	fs, _ := files(false)
	g := fs.Get("p.go")
	info := g.At(at(t, g, "var Long", "Long"), false)
	if info == nil {
		t.Fatal("no declaration of Long")
	}
	sig, ok := strings.CutSuffix(info.Sig, "…")
	if !ok || len(sig) > maxValueSig || len(sig) < maxValueSig-3 || !strings.HasPrefix(sig, `var Long = []string{"éé`) {
		t.Errorf("signature %q (%d bytes before the mark); want the first %d bytes or so, cut with …", info.Sig, len(sig), maxValueSig)
	}
}

// TestFiles parses a file once per Files, and gives nil for a file it
// cannot read.
func TestFiles(t *testing.T) {
	fs, asked := files(false)
	if fs.Get("p.go") != fs.Get("p.go") || *asked != 1 {
		t.Errorf("p.go read %d times for two Gets, want once and the same File", *asked)
	}
	if g := fs.Get("q.go"); g != nil {
		t.Errorf("Get of an unreadable file = %v, want nil", g)
	}
}

// TestPositions converts between positions and UTF-16 columns.
func TestPositions(t *testing.T) {
	fs, _ := files(false)
	g := fs.Get("p.go")
	line := strings.Count(src[:strings.Index(src, "var π")], "\n")
	// "var π = " is 8 UTF-16 units and 9 bytes.
	p := g.Pos(line, 8)
	if got := src[g.Offset(p):][:4]; got != `"ok"` {
		t.Errorf("Pos(%d, 8) is at %q, want the string", line, got)
	}
	if l, c := g.Where(p); l != line || c != 8 {
		t.Errorf("Where = %d:%d, want %d:8", l, c, line)
	}
	if p := g.Pos(len(g.Lines)+1, 0); p.IsValid() {
		t.Errorf("Pos past the end = %v, want NoPos", p)
	}
}
