package bridge

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"

	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
)

// Shared by go_file_context and go_package_api: both show declarations as
// one-line signatures with their doc comments, read from the declaring
// files, and name packages by import path.

// maxValueSig bounds the rendering of a var or const, whose value may be a
// table of any size; function and type signatures are never cut.
const maxValueSig = 160

// goFile is a parsed Go file.
type goFile struct {
	tags  bool // show struct tags
	fset  *token.FileSet
	file  *ast.File
	tf    *token.File
	lines []string
}

// goFiles parses each file once per call. Text gopls holds for an open
// document wins over the disk, so that positions match gopls's.
type goFiles struct {
	b     *Bridge
	files map[string]*goFile
	// tags keeps struct field tags in signatures: they cost many tokens
	// and matter only now and then, so only detailed answers show them.
	tags bool
}

func (b *Bridge) newGoFiles() *goFiles {
	return &goFiles{b: b, files: make(map[string]*goFile)}
}

// get returns the parsed file at path, or nil if it cannot be read or
// parsed at all.
func (c *goFiles) get(path string) *goFile {
	if g, ok := c.files[path]; ok {
		return g
	}
	var g *goFile
	if text, ok := c.b.buffers.CurrentText(path); ok {
		// Parsed afresh, not through the bridge's memo: signatures are
		// printed by hiding comments in the tree for a moment.
		fset := token.NewFileSet()
		f, _ := parser.ParseFile(fset, path, text, parser.ParseComments|parser.SkipObjectResolution)
		if f != nil {
			g = &goFile{tags: c.tags, fset: fset, file: f, tf: fset.File(f.FileStart), lines: c.b.lines.Lines(path, text)}
		}
	}
	c.files[path] = g
	return g
}

// pos converts a 0-based line and UTF-16 column into a position.
func (g *goFile) pos(line, char int) token.Pos {
	if line < 0 || line >= len(g.lines) || line >= g.tf.LineCount() {
		return token.NoPos
	}
	return g.tf.LineStart(line+1) + token.Pos(iplace.ByteOffset(g.lines[line], char))
}

// where returns the 0-based line and UTF-16 column of p.
func (g *goFile) where(p token.Pos) (int, int) {
	pos := g.fset.Position(p)
	line := pos.Line - 1
	if line < 0 || line >= len(g.lines) {
		return line, pos.Column - 1
	}
	return line, iplace.UTF16Col(g.lines[line], pos.Column-1)
}

// declInfo is a declaration rendered for a model.
type declInfo struct {
	name string // Name, or Type.Member for fields and methods
	kind string // func, method, type, var, const, field
	sig  string // the declaration on one line, without body or comments
	doc  string // its doc comment, as text
	// owner is, for a struct field or interface method, the position of
	// its type's name: the type's signature shows the member already.
	owner token.Pos
}

// declAt finds the declaration whose name is at p: a package-level
// declaration, a method, or a field or method of a named struct or
// interface type. exportedOnly hides the unexported members of a type,
// which code outside its package cannot use.
func (g *goFile) declAt(p token.Pos, exportedOnly bool) *declInfo {
	for _, d := range g.file.Decls {
		if p < d.Pos() || p > d.End() {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Pos() == p {
				return g.funcDecl(d)
			}
		case *ast.GenDecl:
			for i, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.Pos() == p {
						return g.typeDecl(d, s, exportedOnly)
					}
					if m := g.memberAt(s, p); m != nil {
						return m
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Pos() == p {
							return g.valueDecl(d, i, n.Name)
						}
					}
				}
			}
		}
	}
	return nil
}

func (g *goFile) funcDecl(d *ast.FuncDecl) *declInfo {
	fn := *d
	fn.Doc, fn.Body = nil, nil
	info := &declInfo{name: d.Name.Name, kind: "func", sig: g.oneLine(&fn), doc: d.Doc.Text()}
	if recv := symbol.ReceiverType(d); recv != "" {
		info.name, info.kind = recv+"."+d.Name.Name, "method"
	}
	return info
}

// typeDecl renders a type; exportedOnly hides unexported fields and
// methods, which are not part of a package's API.
func (g *goFile) typeDecl(d *ast.GenDecl, s *ast.TypeSpec, exportedOnly bool) *declInfo {
	ts := *s
	ts.Doc, ts.Comment = nil, nil
	if exportedOnly {
		ts.Type = exportedMembers(ts.Type)
	}
	return &declInfo{
		name: s.Name.Name,
		kind: "type",
		sig:  g.oneLine(&ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{&ts}}),
		doc:  specDoc(d, s.Doc, s.Comment),
	}
}

// valueDecl renders the var or const spec i of d that declares name. A
// constant spec without type or value repeats the previous one's, as in an
// iota sequence; its type is shown.
func (g *goFile) valueDecl(d *ast.GenDecl, i int, name string) *declInfo {
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
	return &declInfo{name: name, kind: d.Tok.String(), sig: sig, doc: specDoc(d, s.Doc, s.Comment)}
}

// memberAt finds the field or interface method of s named at p.
func (g *goFile) memberAt(s *ast.TypeSpec, p token.Pos) *declInfo {
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
				return &declInfo{name: s.Name.Name + "." + id.Name, kind: "field", sig: s.Name.Name + "." + typ + " (embedded)", doc: doc, owner: s.Name.Pos()}
			}
			continue
		}
		for _, n := range f.Names {
			if n.Pos() != p {
				continue
			}
			if ft, ok := f.Type.(*ast.FuncType); ok {
				return &declInfo{name: s.Name.Name + "." + n.Name, kind: "method",
					sig: s.Name.Name + "." + n.Name + strings.TrimPrefix(g.oneLine(ft), "func"), doc: doc, owner: s.Name.Pos()}
			}
			return &declInfo{name: s.Name.Name + "." + n.Name, kind: "field", sig: s.Name.Name + "." + n.Name + " " + typ, doc: doc, owner: s.Name.Pos()}
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

// oneLine prints node as Go source on a single line: line breaks become
// "; " between fields and statements and vanish inside parentheses, and
// alignment padding is dropped.
func (g *goFile) oneLine(node ast.Node) string {
	// The printer prints the comments of fields (and only those), which
	// have no place on one line: they are hidden while printing, and so
	// are tags unless wanted.
	type saved struct {
		f        *ast.Field
		doc, com *ast.CommentGroup
		tag      *ast.BasicLit
	}
	var hidden []saved
	ast.Inspect(node, func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok && (f.Doc != nil || f.Comment != nil || f.Tag != nil && !g.tags) {
			hidden = append(hidden, saved{f, f.Doc, f.Comment, f.Tag})
			f.Doc, f.Comment = nil, nil
			if !g.tags {
				f.Tag = nil
			}
		}
		return true
	})
	defer func() {
		for _, h := range hidden {
			h.f.Doc, h.f.Comment, h.f.Tag = h.doc, h.com, h.tag
		}
	}()
	var buf bytes.Buffer
	cfg := printer.Config{Mode: printer.RawFormat, Tabwidth: 1}
	if err := cfg.Fprint(&buf, g.fset, node); err != nil {
		return ""
	}
	text := strings.Map(func(r rune) rune {
		switch r {
		case '\f':
			return '\n'
		case '\v':
			return '\t'
		}
		return r
	}, buf.String())
	var out strings.Builder
	prev := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(collapseTabs(line))
		if line == "" {
			continue
		}
		switch {
		case prev == "":
		case strings.HasPrefix(line, ")") || strings.HasPrefix(line, "]"):
			s := strings.TrimSuffix(out.String(), ",")
			out.Reset()
			out.WriteString(s)
		case strings.HasSuffix(prev, "(") || strings.HasSuffix(prev, "["):
		case strings.HasSuffix(prev, "{") || strings.HasSuffix(prev, ",") || strings.HasPrefix(line, "}"):
			out.WriteString(" ")
		default:
			out.WriteString("; ")
		}
		out.WriteString(line)
		prev = line
	}
	return out.String()
}

// collapseTabs turns each run of tabs, the printer's alignment cells, into
// one space.
func collapseTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	tab := false
	for _, r := range s {
		if r == '\t' {
			tab = true
			continue
		}
		if tab {
			b.WriteByte(' ')
			tab = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cut shortens s to about n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// importPaths names the packages of directories, caching per call.
type importPaths struct {
	b     *Bridge
	paths map[string]string
}

func (b *Bridge) newImportPaths() *importPaths {
	return &importPaths{b: b, paths: make(map[string]string)}
}

// of returns the import path of the package in dir: from the Go
// installation's layout, the module cache's, or the nearest go.mod. It is
// "" when none applies.
func (ip *importPaths) of(dir string) string {
	if p, ok := ip.paths[dir]; ok {
		return p
	}
	p := ip.b.importPathOf(dir)
	ip.paths[dir] = p
	return p
}

func (b *Bridge) importPathOf(dir string) string {
	if b.env.GOROOT() != "" {
		src := filepath.Join(b.env.GOROOT(), "src")
		if iplace.Within(src, dir) && dir != src {
			rel, _ := filepath.Rel(src, dir)
			rel = filepath.ToSlash(rel)
			// The standard library's vendored packages are imported
			// without the vendor prefix.
			if _, after, ok := strings.Cut(rel, "vendor/"); ok && (strings.HasPrefix(rel, "vendor/") || strings.HasPrefix(rel, "cmd/vendor/")) {
				return after
			}
			return rel
		}
	}
	if b.env.GOMODCACHE() != "" && iplace.Within(b.env.GOMODCACHE(), dir) {
		rel, _ := filepath.Rel(b.env.GOMODCACHE(), dir)
		rel = filepath.ToSlash(rel)
		if mod, rest, ok := strings.Cut(rel, "@"); ok {
			mod = unescapeModulePath(mod)
			if _, sub, ok := strings.Cut(rest, "/"); ok {
				return mod + "/" + sub
			}
			return mod
		}
	}
	for d := dir; ; {
		if mod := b.modulePath(filepath.Join(d, "go.mod")); mod != "" {
			rel, _ := filepath.Rel(d, dir)
			rel = filepath.ToSlash(rel)
			switch {
			case rel == ".":
				return mod
			case strings.HasPrefix(rel, "vendor/"):
				return strings.TrimPrefix(rel, "vendor/")
			}
			return mod + "/" + rel
		}
		parent := filepath.Dir(d)
		if parent == d || d == b.root {
			return ""
		}
		d = parent
	}
}

// modulePath reads the module directive of a go.mod file, or "".
func (b *Bridge) modulePath(gomod string) string {
	data, err := b.reads.ReadFile(gomod)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" {
			if p, err := strconv.Unquote(f[1]); err == nil {
				return p
			}
			return f[1]
		}
	}
	return ""
}

// unescapeModulePath undoes the module cache's case encoding, in which
// "!x" stands for "X".
func unescapeModulePath(p string) string {
	var b strings.Builder
	bang := false
	for _, r := range p {
		switch {
		case r == '!':
			bang = true
			continue
		case bang && 'a' <= r && r <= 'z':
			r -= 'a' - 'A'
		}
		bang = false
		b.WriteRune(r)
	}
	return b.String()
}
