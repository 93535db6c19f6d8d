package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// A symbolRef is one reading of a symbol argument: an optional package
// name, an optional type, and a name.
type symbolRef struct {
	pkg  string // package name, or ""
	typ  string // type name for a field or method, or ""
	name string
}

// splitSymbol splits a symbol argument into its dotted parts. recv
// reports the (*T).M form, whose first parts are surely a type.
func splitSymbol(sym string) (parts []string, recv bool, err error) {
	s := strings.TrimSpace(sym)
	bad := fmt.Errorf("symbol %s is not of the form Name, pkg.Name, Type.Method, pkg.Type.Method or (*Type).Method", render.Quote(sym))
	// (*T).M, (T).M and (*pkg.T).M name the method M of T.
	if strings.HasPrefix(s, "(") {
		end := strings.Index(s, ")")
		if end < 0 {
			return nil, false, fmt.Errorf("symbol %s has an unclosed parenthesis; write (*Type).Method or Type.Method", render.Quote(sym))
		}
		r := strings.TrimPrefix(s[1:end], "*")
		if !strings.HasPrefix(s[end+1:], ".") {
			return nil, false, bad
		}
		s, recv = r+s[end+1:], true
	}
	// Type parameters of a receiver, as in (*Box[T]).Get, say nothing
	// about which method is meant.
	for {
		i := strings.Index(s, "[")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "]")
		if j < 0 {
			return nil, false, bad
		}
		s = s[:i] + s[i+j+1:]
	}
	parts = strings.Split(s, ".")
	for _, p := range parts {
		if !isIdent(p) {
			return nil, false, bad
		}
	}
	if len(parts) > 3 {
		return nil, false, fmt.Errorf("symbol %s has too many parts; the longest form is pkg.Type.Method", render.Quote(sym))
	}
	if recv && len(parts) < 2 {
		return nil, false, bad
	}
	return parts, recv, nil
}

func isIdent(s string) bool {
	// Letters and digits as Go defines them, not a keyword: U+2028, a
	// bidirectional override or a space is no part of a name.
	return token.IsIdentifier(s)
}

// readings lists what the parts can mean, without a file for context.
func readings(parts []string, recv bool) []symbolRef {
	switch len(parts) {
	case 1:
		return []symbolRef{{name: parts[0]}}
	case 2:
		if recv {
			return []symbolRef{{typ: parts[0], name: parts[1]}}
		}
		return []symbolRef{{pkg: parts[0], name: parts[1]}, {typ: parts[0], name: parts[1]}}
	}
	return []symbolRef{{pkg: parts[0], typ: parts[1], name: parts[2]}}
}

// A decl is a declaration found by the symbol search.
type decl struct {
	path      string
	line, col int // 0-based; col in UTF-16
	desc      string
	// via names the embedded fields a promoted method or field is
	// reached through, e.g. "Base" for Derived.Hello declared on Base.
	via []string
}

// symbolResolver finds declarations for one call, caching what it parses.
type symbolResolver struct {
	b    *Bridge
	ctx  context.Context
	t    *target // keeps the buffers opened to ask gopls
	pkgs map[string]*pkgFiles
	// scope is the file in scope, already parsed, or nil.
	scope *parsedFile
}

// resolveSymbol points t at the declaration of sym, as seen from the file
// scope, or across the workspace when scope is nil.
func (b *Bridge) resolveSymbol(ctx context.Context, t *target, scope *source, sym string) error {
	parts, recv, err := splitSymbol(sym)
	if err != nil {
		return err
	}
	r := &symbolResolver{b: b, ctx: ctx, t: t, pkgs: map[string]*pkgFiles{}}
	var decls []decl
	pkgName := ""
	if scope != nil {
		fset, file, err := b.parsed.Parse(scope.path, scope.text, parser.SkipObjectResolution)
		if file == nil {
			return fmt.Errorf("cannot parse %s to find symbol %s: %s", b.displayPath(scope.path), render.Quote(sym), render.ClipN(err.Error(), goplsMessageChars))
		}
		pkgName = file.Name.Name
		r.scope = &parsedFile{path: scope.path, text: scope.text, fset: fset, ast: file}
		decls, err = r.inScope(scope, fset, file, parts, recv)
		if err != nil {
			return err
		}
	}
	if len(decls) == 0 {
		// Not declared in the scope of the file: perhaps elsewhere.
		decls, err = r.inWorkspace(readings(parts, recv))
		if err != nil {
			return err
		}
	}
	switch len(decls) {
	case 0:
		if scope == nil || pkgName == "" {
			// pkgName is empty when the file's package clause is broken.
			return fmt.Errorf("symbol %s is not found in the workspace; check the spelling, or use go_search to find it", render.Quote(sym))
		}
		return fmt.Errorf("symbol %s is not declared in package %s nor found in the workspace; check the spelling, or use go_search to find it", render.Quote(sym), pkgName)
	case 1:
	default:
		// A declaration in the file itself wins.
		var inFile []decl
		for _, d := range decls {
			if scope != nil && d.path == scope.path {
				inFile = append(inFile, d)
			}
		}
		if len(inFile) != 1 {
			return b.ambiguous(sym, decls, scope == nil)
		}
		decls = inFile
	}
	d := decls[0]
	src := scope
	if scope == nil || d.path != scope.path {
		src, err = b.openCurrent(ctx, d.path)
		if err != nil {
			return err
		}
		t.keep(src)
	}
	t.src, t.line, t.character = src, d.line, d.col
	if len(d.via) > 0 {
		t.note = fmt.Sprintf("%s is promoted through the embedded field %s; this is its declaration, %s", render.Clip(strings.TrimSpace(sym)), strings.Join(d.via, "."), d.desc)
	}
	return nil
}

func (b *Bridge) ambiguous(sym string, decls []decl, workspace bool) error {
	slices.SortFunc(decls, func(x, y decl) int {
		return cmp.Or(cmp.Compare(x.path, y.path), cmp.Compare(x.line, y.line))
	})
	var list []string
	for i, d := range decls {
		if i == 10 {
			list = append(list, fmt.Sprintf("and %d more", len(decls)-10))
			break
		}
		list = append(list, fmt.Sprintf("%s at %s:%d:%d", d.desc, b.displayPath(d.path), d.line, d.col))
	}
	hint := "pass file with line and character of one of"
	if workspace {
		hint = "qualify it (pkg.Name, Type.Method), pass file for its scope, or pass file with line and character of one of"
	}
	return fmt.Errorf("symbol %s is ambiguous; %s: %s", render.Quote(sym), hint, strings.Join(list, "; "))
}

// inScope finds the parts as the file scope would: names of its package,
// or of the packages it imports.
func (r *symbolResolver) inScope(scope *source, fset *token.FileSet, file *ast.File, parts []string, recv bool) ([]decl, error) {
	dir, own := filepath.Dir(scope.path), file.Name.Name
	imports := importNames(file)
	imported := func(name string) (string, string, bool, error) {
		imp, ok := imports[name]
		if !ok {
			return "", "", false, nil
		}
		d, p, err := r.b.importedPackageDir(r.ctx, scope, fset, imp)
		return d, p, true, err
	}
	switch len(parts) {
	case 1:
		return r.find(dir, own, symbolRef{name: parts[0]}, scope), nil
	case 2:
		if !recv {
			if d, p, ok, err := imported(parts[0]); err != nil || ok {
				if err != nil {
					return nil, err
				}
				return r.find(d, p, symbolRef{name: parts[1]}, scope), nil
			}
		}
		if found := r.find(dir, own, symbolRef{typ: parts[0], name: parts[1]}, scope); len(found) > 0 {
			return found, nil
		}
		if parts[0] == own && !recv {
			return r.find(dir, own, symbolRef{name: parts[1]}, scope), nil
		}
		return nil, nil
	}
	ref := symbolRef{typ: parts[1], name: parts[2]}
	if d, p, ok, err := imported(parts[0]); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return r.find(d, p, ref, scope), nil
	}
	if parts[0] == own {
		return r.find(dir, own, ref, scope), nil
	}
	return nil, nil
}

// inWorkspace finds each reading across the workspace: gopls's symbol
// search names the packages that declare something of that name, and
// their files say exactly what. Declarations inside the root are
// preferred to those outside it.
func (r *symbolResolver) inWorkspace(refs []symbolRef) ([]decl, error) {
	var found []decl
	seen := map[string]bool{}
	for _, ref := range refs {
		queries := []string{ref.name}
		if ref.typ != "" {
			// The type's package, for a member promoted from elsewhere.
			queries = append(queries, ref.typ)
		}
		for _, q := range queries {
			pkgs, err := r.packagesDeclaring(q)
			if err != nil {
				return nil, err
			}
			for _, p := range pkgs {
				if ref.pkg != "" && p.name != ref.pkg {
					continue
				}
				for _, d := range r.find(p.dir, p.name, symbolRef{typ: ref.typ, name: ref.name}, nil) {
					key := fmt.Sprintf("%s:%d:%d", d.path, d.line, d.col)
					if !seen[key] {
						seen[key] = true
						found = append(found, d)
					}
				}
			}
		}
	}
	var inRoot []decl
	for _, d := range found {
		if iplace.Within(r.b.root, d.path) {
			inRoot = append(inRoot, d)
		}
	}
	if len(inRoot) > 0 {
		return inRoot, nil
	}
	return found, nil
}

type pkgDir struct{ dir, name string }

// packagesDeclaring asks gopls's symbol search for name and returns the
// packages whose symbols end in exactly that name.
func (r *symbolResolver) packagesDeclaring(name string) ([]pkgDir, error) {
	var syms []struct {
		Name     string            `json:"name"`
		Location protocol.Location `json:"location"`
	}
	// A search of the workspace: packages that just appeared on disk count.
	if err := r.b.client.Call(lspclient.WorkspaceWide(r.ctx), "workspace/symbol", map[string]any{"query": name}, &syms); err != nil {
		return nil, goplsError(err)
	}
	var out []pkgDir
	seen := map[string]bool{}
	for _, s := range syms {
		if s.Name != name && !strings.HasSuffix(s.Name, "."+name) {
			continue
		}
		p, err := lspclient.URIPath(string(s.Location.URI))
		if err != nil || r.b.foreignPath(r.ctx, p) {
			continue
		}
		dir := filepath.Dir(p)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		text, _ := r.b.textOf(p, nil)
		f, err := parser.ParseFile(token.NewFileSet(), p, text, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		out = append(out, pkgDir{dir: dir, name: f.Name.Name})
	}
	return out, nil
}

// find returns the declarations of ref in the package pkgName in dir:
// direct ones, or else members promoted through embedded fields, at the
// shallowest depth that has any (as Go's selector rule has it).
func (r *symbolResolver) find(dir, pkgName string, ref symbolRef, from *source) []decl {
	// A declaration in the file in scope wins over the rest of its
	// package (see resolveSymbol), so when that file declares ref once
	// the other files need not be parsed: in a large package (net/http)
	// they are nearly all the cost of a call.
	if s := r.scope; s != nil && filepath.Dir(s.path) == dir && s.ast.Name.Name == pkgName {
		one := &pkgFiles{dir: dir, name: pkgName, files: []*parsedFile{s}}
		if own := one.decls(ref); len(own) == 1 {
			return own
		}
	}
	pkg := r.load(dir, pkgName, from)
	direct := pkg.decls(ref)
	if len(direct) > 0 || ref.typ == "" {
		return direct
	}
	return r.promoted(pkg, ref.typ, ref.name, from)
}

// embedded is a type reached through embedded fields.
type embedded struct {
	pkg  *pkgFiles
	typ  string
	via  []string
	name string // how the field is written, e.g. "Base" or "io.Reader"
}

// promoted searches the types embedded in typ, level by level, for a
// method or field name.
func (r *symbolResolver) promoted(pkg *pkgFiles, typ, name string, from *source) []decl {
	const maxDepth = 5
	level := []embedded{{pkg: pkg, typ: typ}}
	seen := map[string]bool{pkg.dir + "." + typ: true}
	for depth := 0; depth < maxDepth && len(level) > 0; depth++ {
		var found []decl
		var next []embedded
		for _, e := range level {
			if depth > 0 {
				for _, d := range e.pkg.decls(symbolRef{typ: e.typ, name: name}) {
					d.via = e.via
					found = append(found, d)
				}
			}
			spec, file := e.pkg.typeSpec(e.typ)
			if spec == nil {
				continue
			}
			for _, x := range embeddedTypes(spec) {
				ep, et := r.embeddedType(e.pkg, file, x, from)
				if ep == nil || seen[ep.dir+"."+et] {
					continue
				}
				seen[ep.dir+"."+et] = true
				via := append(slices.Clip(e.via), fieldName(x))
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

// embeddedTypes returns the type expressions embedded in a struct or
// interface type.
func embeddedTypes(spec *ast.TypeSpec) []ast.Expr {
	list := memberList(spec.Type)
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

// baseType strips pointers and type arguments from an embedded type.
func baseType(x ast.Expr) ast.Expr {
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

// fieldName is the name of an embedded field: its type's name.
func fieldName(x ast.Expr) string {
	switch t := baseType(x).(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return "?"
}

// embeddedType finds the package and name of an embedded type written in
// file of pkg: a type of pkg itself, or pkg.T of a package file imports.
func (r *symbolResolver) embeddedType(pkg *pkgFiles, file *parsedFile, x ast.Expr, from *source) (*pkgFiles, string) {
	switch t := baseType(x).(type) {
	case *ast.Ident:
		return pkg, t.Name
	case *ast.SelectorExpr:
		id, ok := t.X.(*ast.Ident)
		if !ok {
			return nil, ""
		}
		imp, ok := importNames(file.ast)[id.Name]
		if !ok {
			return nil, ""
		}
		// gopls says where the import leads, asked from the file that
		// has it.
		src := from
		if src == nil || src.path != file.path {
			s, err := r.b.openCurrent(r.ctx, file.path)
			if err != nil {
				return nil, ""
			}
			r.t.keep(s)
			src = s
		}
		if src.kind == asContext {
			return nil, ""
		}
		dir, name, err := r.b.importedPackageDir(r.ctx, src, file.fset, imp)
		if err != nil {
			return nil, ""
		}
		return r.load(dir, name, from), t.Sel.Name
	}
	return nil, ""
}

// pkgFiles are the parsed files of one package.
type pkgFiles struct {
	dir, name string
	files     []*parsedFile
}

type parsedFile struct {
	path string
	text string
	fset *token.FileSet
	ast  *ast.File
}

// load parses the files of package name in dir. The text of from, and of
// any file gopls holds open, is used in place of the file on disk.
func (r *symbolResolver) load(dir, name string, from *source) *pkgFiles {
	key := dir + "\x00" + name
	if p, ok := r.pkgs[key]; ok {
		return p
	}
	p := &pkgFiles{dir: dir, name: name}
	r.pkgs[key] = p
	var paths []string
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			// Files of another build are in no package gopls knows; the
			// file in scope counts, whatever its constraints.
			inScope := r.scope != nil && r.scope.path == path
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") && (inScope || r.b.build.Includes(dir, e.Name())) {
				paths = append(paths, path)
			}
		}
	}
	// A snippet, or an overlay of a file not yet on disk.
	if from != nil && filepath.Dir(from.path) == dir && !slices.Contains(paths, from.path) {
		paths = append(paths, from.path)
	}
	for _, path := range paths {
		text, ok := r.b.textOf(path, from)
		if !ok {
			continue
		}
		fset, f, _ := r.b.parsed.Parse(path, text, parser.SkipObjectResolution)
		if f == nil || f.Name.Name != name {
			continue
		}
		p.files = append(p.files, &parsedFile{path: path, text: text, fset: fset, ast: f})
	}
	return p
}

// textOf returns the text of a file as gopls holds it: from's text, an
// open buffer's, or the file on disk; false if unreadable.
func (b *Bridge) textOf(path string, from *source) (string, bool) {
	if from != nil && from.path == path {
		return from.text, true
	}
	return b.currentText(path)
}

// decls returns the declarations of ref in the package.
func (p *pkgFiles) decls(ref symbolRef) []decl {
	var out []decl
	for _, f := range p.files {
		for _, d := range f.ast.Decls {
			matchDecl(d, ref, func(id *ast.Ident, desc string) {
				out = append(out, f.declAt(id, desc))
			})
		}
	}
	return out
}

// typeSpec returns the declaration of type name, and its file.
func (p *pkgFiles) typeSpec(name string) (*ast.TypeSpec, *parsedFile) {
	for _, f := range p.files {
		for _, d := range f.ast.Decls {
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

func (f *parsedFile) declAt(id *ast.Ident, desc string) decl {
	pos := f.fset.Position(id.Pos())
	line := pos.Line - 1
	start := f.fset.File(id.Pos()).LineStart(pos.Line)
	lineText := f.text[f.fset.Position(start).Offset:]
	if i := strings.IndexByte(lineText, '\n'); i >= 0 {
		lineText = lineText[:i]
	}
	return decl{path: f.path, line: line, col: iplace.UTF16Col(lineText, pos.Column-1), desc: desc}
}

// matchDecl calls add for each identifier in d that declares ref.
func matchDecl(d ast.Decl, ref symbolRef, add func(*ast.Ident, string)) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Name.Name != ref.name {
			return
		}
		recv := receiverType(d)
		if recv == ref.typ {
			if recv == "" {
				add(d.Name, "func "+ref.name)
			} else {
				add(d.Name, "method "+recv+"."+ref.name)
			}
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if ref.typ == "" && s.Name.Name == ref.name {
					add(s.Name, "type "+ref.name)
				}
				if ref.typ == s.Name.Name {
					matchMember(s, ref, add)
				}
			case *ast.ValueSpec:
				if ref.typ != "" {
					continue
				}
				for _, n := range s.Names {
					if n.Name == ref.name {
						add(n, d.Tok.String()+" "+ref.name)
					}
				}
			}
		}
	}
}

// matchMember finds a field of a struct type or a method of an interface
// type.
func matchMember(s *ast.TypeSpec, ref symbolRef, add func(*ast.Ident, string)) {
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
			if n.Name == ref.name {
				add(n, kind+" "+ref.typ+"."+ref.name)
			}
		}
	}
}

// receiverType is the base type name of a method's receiver, or "".
func receiverType(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	if id, ok := baseType(d.Recv.List[0].Type).(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// importNames maps the names a file's imports are known by to their paths.
// A path's last element stands for the package name when there is no
// explicit name, the convention nearly every package follows.
func importNames(f *ast.File) map[string]*ast.ImportSpec {
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

// importedPackageDir asks gopls where an imported package lives, by going
// to the definition of its import path in src, which gopls holds.
func (b *Bridge) importedPackageDir(ctx context.Context, src *source, fset *token.FileSet, imp *ast.ImportSpec) (string, string, error) {
	pos := fset.Position(imp.Path.Pos() + 1)
	line := pos.Line - 1
	col := iplace.UTF16Col(src.line(line), pos.Column-1)
	var locs []protocol.Location
	t := &target{src: src, line: line, character: col}
	if err := b.client.Call(ctx, "textDocument/definition", t.position(), &locs); err != nil {
		return "", "", goplsError(err)
	}
	if len(locs) == 0 {
		return "", "", fmt.Errorf("gopls cannot find package %s; is it in go.mod?", render.Clip(imp.Path.Value))
	}
	p, err := lspclient.URIPath(string(locs[0].URI))
	if err != nil {
		return "", "", err
	}
	dir := filepath.Dir(p)
	text, _ := b.textOf(p, nil)
	f, err := parser.ParseFile(token.NewFileSet(), p, text, parser.PackageClauseOnly)
	if err != nil {
		return "", "", fmt.Errorf("cannot read package %s: %v", render.Clip(imp.Path.Value), err)
	}
	return dir, f.Name.Name, nil
}

// goplsMessageChars bounds the part of a gopls or parser error shown in a
// tool error: either may quote the client's text.
const goplsMessageChars = 300

// goplsError turns an error from the client into a sentence for the model.
func goplsError(err error) error {
	var re *lspclient.ResponseError
	var lt *lspclient.LoadTimeoutError
	switch {
	case errors.As(err, &re):
		// gopls's messages may span lines; a tool error is one line.
		// They may quote what the client sent (a name, a line of its
		// text), so they are bounded like any echo.
		msg := strings.Join(strings.Fields(strings.ReplaceAll(re.Message, "\n", "; ")), " ")
		return fmt.Errorf("gopls: %s", render.ClipN(msg, goplsMessageChars))
	case errors.As(err, &lt):
		// The load goes on: a later call may find it done.
		return fmt.Errorf("gopls did not finish loading the workspace within %s; retry later, or restart goplsmcp with a longer --load-timeout or a narrower --root", lt.Bound)
	case errors.Is(err, lspclient.ErrTimeout):
		return fmt.Errorf("gopls did not answer in time; retry, or narrow the call")
	case errors.Is(err, lspclient.ErrExited):
		// The client has sent the request again, once, to the new gopls;
		// this one died too.
		return errRestarted
	}
	return err
}

// errRestarted is the one error a call gets because gopls was restarted
// under it (docs/troubleshooting.md, "When gopls misbehaves").
var errRestarted = errors.New("gopls was restarted while answering; send the call again")
