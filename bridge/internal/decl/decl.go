package decl

import (
	"go/ast"
	"go/token"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
)

// maxValueSig bounds the rendering of a var or const, whose value may be a
// table of any size; function and type signatures are never cut.
const maxValueSig = 160

// An Info is a declaration rendered for a model.
type Info struct {
	Name string // Name, or Type.Member for fields and methods
	Kind string // func, method, type, var, const, field
	Sig  string // the declaration on one line, without body or comments
	Doc  string // its doc comment, as text
	// Owner is, for a struct field or interface method, the position of
	// its type's name: the type's signature shows the member already.
	Owner token.Pos
}

// At finds the declaration whose name is at p: a package-level
// declaration, a method, or a field or method of a named struct or
// interface type; nil if there is none. exportedOnly hides the unexported
// members of a type, which code outside its package cannot use.
func (g *File) At(p token.Pos, exportedOnly bool) *Info {
	for _, d := range g.AST.Decls {
		if p < d.Pos() || p > d.End() {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Pos() == p {
				return g.Func(d)
			}
		case *ast.GenDecl:
			for i, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.Pos() == p {
						return g.Type(d, s, exportedOnly)
					}
					if m := g.memberAt(s, p); m != nil {
						return m
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Pos() == p {
							return g.Value(d, i, n.Name)
						}
					}
				}
			}
		}
	}
	return nil
}

// TypeParams renders the type parameters of the function, method or type
// whose name is at p as Go declares them ("[K comparable, V any]"), or ""
// if it has none: gopls's outline leaves them out.
func (g *File) TypeParams(p token.Pos) string {
	var list *ast.FieldList
	for _, d := range g.AST.Decls {
		if p < d.Pos() || p > d.End() {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Pos() == p {
				list = d.Type.TypeParams
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if s, ok := spec.(*ast.TypeSpec); ok && s.Name.Pos() == p {
					list = s.TypeParams
				}
			}
		}
	}
	if list == nil || len(list.List) == 0 {
		return ""
	}
	params := make([]string, 0, len(list.List))
	for _, f := range list.List {
		names := make([]string, len(f.Names))
		for i, n := range f.Names {
			names[i] = n.Name
		}
		params = append(params, strings.Join(names, ", ")+" "+g.oneLine(f.Type))
	}
	return "[" + strings.Join(params, ", ") + "]"
}

// Func renders a function or method declared in the file.
func (g *File) Func(d *ast.FuncDecl) *Info {
	fn := *d
	fn.Doc, fn.Body = nil, nil
	info := &Info{Name: d.Name.Name, Kind: "func", Sig: g.oneLine(&fn), Doc: d.Doc.Text()}
	if recv := symbol.ReceiverType(d); recv != "" {
		info.Name, info.Kind = recv+"."+d.Name.Name, "method"
	}
	return info
}

// Type renders the type spec s of d; exportedOnly hides unexported fields
// and methods, which are not part of a package's API.
func (g *File) Type(d *ast.GenDecl, s *ast.TypeSpec, exportedOnly bool) *Info {
	ts := *s
	ts.Doc, ts.Comment = nil, nil
	if exportedOnly {
		ts.Type = exportedMembers(ts.Type)
	}
	return &Info{
		Name: s.Name.Name,
		Kind: "type",
		Sig:  g.oneLine(&ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{&ts}}),
		Doc:  specDoc(d, s.Doc, s.Comment),
	}
}

// Value renders the var or const spec i of d that declares name. A
// constant spec without type or value repeats the previous one's, as in an
// iota sequence; its type is shown. A long value is cut.
func (g *File) Value(d *ast.GenDecl, i int, name string) *Info {
	s := d.Specs[i].(*ast.ValueSpec)
	vs := *s
	vs.Doc, vs.Comment = nil, nil
	if vs.Type == nil && len(vs.Values) == 0 {
		for j := i - 1; j >= 0; j-- {
			prev := d.Specs[j].(*ast.ValueSpec)
			if prev.Type != nil || len(prev.Values) > 0 {
				vs.Type = prev.Type
				break
			}
		}
	}
	sig := g.oneLine(&ast.GenDecl{Tok: d.Tok, Specs: []ast.Spec{&vs}})
	if len(sig) > maxValueSig {
		sig = cut(sig, maxValueSig)
	}
	return &Info{Name: name, Kind: d.Tok.String(), Sig: sig, Doc: specDoc(d, s.Doc, s.Comment)}
}

// memberAt finds the field or interface method of s named at p.
func (g *File) memberAt(s *ast.TypeSpec, p token.Pos) *Info {
	fields := symbol.MemberList(s.Type)
	if fields == nil {
		return nil
	}
	for _, f := range fields.List {
		doc := f.Doc.Text()
		if doc == "" {
			doc = f.Comment.Text()
		}
		typ := g.oneLine(f.Type)
		if len(f.Names) == 0 {
			// An embedded field is named by its type.
			if id := embeddedName(f.Type); id != nil && id.Pos() == p {
				return &Info{Name: s.Name.Name + "." + id.Name, Kind: "field", Sig: s.Name.Name + "." + typ + " (embedded)", Doc: doc, Owner: s.Name.Pos()}
			}
			continue
		}
		for _, n := range f.Names {
			if n.Pos() != p {
				continue
			}
			if ft, ok := f.Type.(*ast.FuncType); ok {
				return &Info{Name: s.Name.Name + "." + n.Name, Kind: "method",
					Sig: s.Name.Name + "." + n.Name + strings.TrimPrefix(g.oneLine(ft), "func"), Doc: doc, Owner: s.Name.Pos()}
			}
			return &Info{Name: s.Name.Name + "." + n.Name, Kind: "field", Sig: s.Name.Name + "." + n.Name + " " + typ, Doc: doc, Owner: s.Name.Pos()}
		}
	}
	return nil
}

// embeddedName is the type name of an embedded field, or nil.
func embeddedName(t ast.Expr) *ast.Ident {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x
		default:
			return nil
		}
	}
}

// specDoc is the documentation of a spec: its own doc comment, else the
// declaration's when it declares only this spec, else its line comment.
func specDoc(d *ast.GenDecl, doc, comment *ast.CommentGroup) string {
	if doc == nil && len(d.Specs) == 1 {
		doc = d.Doc
	}
	if doc == nil {
		doc = comment
	}
	return doc.Text()
}

// exportedMembers returns a struct or interface type reduced to its
// exported fields and methods (embedded ones included when their type is
// exported); "..." stands for what was left out.
func exportedMembers(t ast.Expr) ast.Expr {
	list := symbol.MemberList(t)
	if list == nil {
		return t
	}
	kept := &ast.FieldList{Opening: list.Opening, Closing: list.Closing}
	hidden := false
	for _, f := range list.List {
		if len(f.Names) == 0 {
			if id := embeddedName(f.Type); id == nil || id.IsExported() {
				kept.List = append(kept.List, f)
			} else {
				hidden = true
			}
			continue
		}
		var names []*ast.Ident
		for _, n := range f.Names {
			if n.IsExported() {
				names = append(names, n)
			}
		}
		if len(names) < len(f.Names) {
			hidden = true
		}
		if len(names) > 0 {
			g := *f
			g.Names, g.Doc, g.Comment = names, nil, nil
			kept.List = append(kept.List, &g)
		}
	}
	if hidden {
		kept.List = append(kept.List, &ast.Field{Type: &ast.Ident{Name: "...", NamePos: list.Closing}})
	}
	switch x := t.(type) {
	case *ast.StructType:
		y := *x
		y.Fields = kept
		return &y
	case *ast.InterfaceType:
		y := *x
		y.Methods = kept
		return &y
	}
	return t
}
