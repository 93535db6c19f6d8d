package symbol

import (
	"go/ast"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// A Decl is a declaration found by the symbol search.
type Decl struct {
	Path      string
	Line, Col int // 0-based; Col in UTF-16, as gopls takes them
	// At is the same place as answers show it (1-based, byte column).
	At   place.Pos
	Desc string
	// Via names the embedded fields a promoted method or field is
	// reached through, e.g. "Base" for Derived.Hello declared on Base.
	Via []string
}

// A Package is the parsed files of one package.
type Package struct {
	Dir, Name string
	Files     []*File
}

// A File is one parsed file of a package, with the text it was parsed
// from.
type File struct {
	Path string
	Text string
	Fset *token.FileSet
	AST  *ast.File
}

// Decls returns the declarations of ref in the package.
func (p *Package) Decls(ref Ref) []Decl {
	var out []Decl
	for _, f := range p.Files {
		for _, d := range f.AST.Decls {
			MatchDecl(d, ref, func(id *ast.Ident, desc string) {
				out = append(out, f.DeclAt(id, desc))
			})
		}
	}
	return out
}

// TypeSpec returns the declaration of type name, and its file.
func (p *Package) TypeSpec(name string) (*ast.TypeSpec, *File) {
	for _, f := range p.Files {
		for _, d := range f.AST.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.Name == name {
					return ts, f
				}
			}
		}
	}
	return nil, nil
}

// DeclAt is the declaration whose name is id, described as desc.
func (f *File) DeclAt(id *ast.Ident, desc string) Decl {
	pos := f.Fset.Position(id.Pos())
	line := pos.Line - 1
	start := f.Fset.File(id.Pos()).LineStart(pos.Line)
	lineText := f.Text[f.Fset.Position(start).Offset:]
	if i := strings.IndexByte(lineText, '\n'); i >= 0 {
		lineText = lineText[:i]
	}
	return Decl{Path: f.Path, Line: line, Col: place.UTF16Col(lineText, pos.Column-1), At: place.Pos{Line: pos.Line, Column: pos.Column}, Desc: desc}
}

// MatchDecl calls add for each identifier in d that declares ref.
func MatchDecl(d ast.Decl, ref Ref, add func(*ast.Ident, string)) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Name.Name != ref.Name {
			return
		}
		recv := ReceiverType(d)
		if recv == ref.Type {
			if recv == "" {
				add(d.Name, "func "+ref.Name)
			} else {
				add(d.Name, "method "+recv+"."+ref.Name)
			}
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if ref.Type == "" && s.Name.Name == ref.Name {
					add(s.Name, "type "+ref.Name)
				}
				if ref.Type == s.Name.Name {
					matchMember(s, ref, add)
				}
			case *ast.ValueSpec:
				if ref.Type != "" {
					continue
				}
				for _, n := range s.Names {
					if n.Name == ref.Name {
						add(n, d.Tok.String()+" "+ref.Name)
					}
				}
			}
		}
	}
}

// matchMember finds a field of a struct type or a method of an interface
// type.
func matchMember(s *ast.TypeSpec, ref Ref, add func(*ast.Ident, string)) {
	var fields *ast.FieldList
	kind := "field"
	switch t := s.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields, kind = t.Methods, "method"
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			if n.Name == ref.Name {
				add(n, kind+" "+ref.Type+"."+ref.Name)
			}
		}
	}
}

// ReceiverType is the base type name of a method's receiver, or "".
func ReceiverType(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	if id, ok := BaseType(d.Recv.List[0].Type).(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// ImportNames maps the names a file's imports are known by to their
// paths. A path's last element stands for the package name when there is
// no explicit name, the convention nearly every package follows.
func ImportNames(f *ast.File) map[string]*ast.ImportSpec {
	m := make(map[string]*ast.ImportSpec)
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if v := strings.TrimPrefix(name, "v"); name != v && isDigits(v) {
			// example.com/mod/v2 is package mod.
			name = path.Base(path.Dir(p))
		}
		name = strings.TrimPrefix(strings.TrimSuffix(name, "-go"), "go-")
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "_" || name == "." {
			continue
		}
		m[name] = imp
	}
	return m
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// MemberList returns the fields of a struct type or the methods of an
// interface type, and nil for any other type.
func MemberList(t ast.Expr) *ast.FieldList {
	switch x := t.(type) {
	case *ast.StructType:
		return x.Fields
	case *ast.InterfaceType:
		return x.Methods
	}
	return nil
}

// EmbeddedTypes returns the type expressions embedded in a struct or
// interface type.
func EmbeddedTypes(spec *ast.TypeSpec) []ast.Expr {
	list := MemberList(spec.Type)
	if list == nil {
		return nil
	}
	var out []ast.Expr
	for _, f := range list.List {
		if len(f.Names) == 0 {
			out = append(out, f.Type)
		}
	}
	return out
}

// BaseType strips pointers and type arguments from an embedded type.
func BaseType(x ast.Expr) ast.Expr {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.ParenExpr:
			x = t.X
		default:
			return x
		}
	}
}

// FieldName is the name of an embedded field: its type's name.
func FieldName(x ast.Expr) string {
	switch t := BaseType(x).(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return "?"
}

// embedded is a type reached through embedded fields.
type embedded struct {
	pkg *Package
	typ string
	via []string
}

// Promoted searches the types embedded in typ of pkg, level by level, for
// a method or field name, and returns the declarations at the shallowest
// level that has any. resolve says which package and type an embedded
// type expression x written in file of pkg names (nil when unknown):
// where an import leads is gopls's to say.
func Promoted(pkg *Package, typ, name string, resolve func(pkg *Package, file *File, x ast.Expr) (*Package, string)) []Decl {
	const maxDepth = 5
	level := []embedded{{pkg: pkg, typ: typ}}
	seen := map[string]bool{pkg.Dir + "." + typ: true}
	for depth := 0; depth < maxDepth && len(level) > 0; depth++ {
		var found []Decl
		var next []embedded
		for _, e := range level {
			if depth > 0 {
				for _, d := range e.pkg.Decls(Ref{Type: e.typ, Name: name}) {
					d.Via = e.via
					found = append(found, d)
				}
			}
			spec, file := e.pkg.TypeSpec(e.typ)
			if spec == nil {
				continue
			}
			for _, x := range EmbeddedTypes(spec) {
				ep, et := resolve(e.pkg, file, x)
				if ep == nil || seen[ep.Dir+"."+et] {
					continue
				}
				seen[ep.Dir+"."+et] = true
				via := append(slices.Clip(e.via), FieldName(x))
				next = append(next, embedded{pkg: ep, typ: et, via: via})
			}
		}
		if len(found) > 0 {
			return found
		}
		level = next
	}
	return nil
}
