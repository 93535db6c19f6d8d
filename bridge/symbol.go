package bridge

import (
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

	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// A symbolRef is a parsed symbol argument: an optional package qualifier,
// an optional type, and a name.
type symbolRef struct {
	pkg  string // import name, or ""
	typ  string // type name for a field or method, or ""
	name string
}

func (r symbolRef) String() string {
	return strings.Join(slices.DeleteFunc([]string{r.pkg, r.typ, r.name}, func(s string) bool { return s == "" }), ".")
}

// parseSymbol splits a symbol argument. imported reports whether a name is
// a package imported by the file in scope, which decides what "A.B" means.
func parseSymbol(sym string, imported func(string) bool) (symbolRef, error) {
	s := strings.TrimSpace(sym)
	// (*T).M and (T).M name the method M of T.
	if strings.HasPrefix(s, "(") {
		end := strings.Index(s, ")")
		if end < 0 {
			return symbolRef{}, fmt.Errorf("symbol %s has an unclosed parenthesis; write (*Type).Method or Type.Method", quote(sym))
		}
		recv := strings.TrimPrefix(s[1:end], "*")
		s = recv + s[end+1:]
	}
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if !isIdent(p) {
			return symbolRef{}, fmt.Errorf("symbol %s is not of the form Name, pkg.Name, Type.Method, pkg.Type.Method or (*Type).Method", quote(sym))
		}
	}
	switch len(parts) {
	case 1:
		return symbolRef{name: parts[0]}, nil
	case 2:
		if imported(parts[0]) {
			return symbolRef{pkg: parts[0], name: parts[1]}, nil
		}
		return symbolRef{typ: parts[0], name: parts[1]}, nil
	case 3:
		return symbolRef{pkg: parts[0], typ: parts[1], name: parts[2]}, nil
	}
	return symbolRef{}, fmt.Errorf("symbol %s has too many parts; the longest form is pkg.Type.Method", quote(sym))
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

// A decl is a declaration found by the symbol search.
type decl struct {
	path      string
	line, col int // 0-based; col in UTF-16
	desc      string
}

// resolveSymbol finds the declaration of sym as seen from the file src.
func (b *Bridge) resolveSymbol(ctx context.Context, src *source, sym string) (*target, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, src.path, src.text, parser.SkipObjectResolution)
	if file == nil {
		return nil, fmt.Errorf("cannot parse %s to find symbol %s: %v", b.displayPath(src.path), quote(sym), err)
	}
	imports := importNames(file)
	ref, err := parseSymbol(sym, func(name string) bool { _, ok := imports[name]; return ok })
	if err != nil {
		return nil, err
	}

	var dir, pkgName string
	if ref.pkg != "" {
		dir, pkgName, err = b.importedPackageDir(ctx, src, fset, imports[ref.pkg])
		if err != nil {
			return nil, err
		}
	} else {
		dir, pkgName = filepath.Dir(src.path), file.Name.Name
	}
	decls := findDecls(dir, pkgName, ref, src)
	if len(decls) == 0 && ref.pkg == "" {
		// Not declared in this package: perhaps elsewhere in the workspace.
		decls, err = b.searchWorkspace(ctx, ref)
		if err != nil {
			return nil, err
		}
	}
	switch len(decls) {
	case 0:
		return nil, fmt.Errorf("symbol %s is not declared in package %s nor found in the workspace; check the spelling, or use go_search to find it", quote(sym), pkgName)
	case 1:
	default:
		// A declaration in the file itself wins.
		var inFile []decl
		for _, d := range decls {
			if d.path == src.path {
				inFile = append(inFile, d)
			}
		}
		if len(inFile) != 1 {
			return nil, ambiguous(b, sym, decls)
		}
		decls = inFile
	}
	d := decls[0]
	t, err := b.targetAt(ctx, d.path, d.line, d.col, src)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func ambiguous(b *Bridge, sym string, decls []decl) error {
	var list []string
	for i, d := range decls {
		if i == 10 {
			list = append(list, fmt.Sprintf("and %d more", len(decls)-10))
			break
		}
		list = append(list, fmt.Sprintf("%s at %s:%d:%d", d.desc, b.displayPath(d.path), d.line, d.col))
	}
	return fmt.Errorf("symbol %s is ambiguous; pass file with line and character of one of: %s", quote(sym), strings.Join(list, "; "))
}

// targetAt makes a target at a declaration. A file inside the root is
// synced to gopls first; one outside it (the standard library, the module
// cache) is only read, as context.
func (b *Bridge) targetAt(ctx context.Context, path string, line, col int, from *source) (*target, error) {
	if from != nil && path == from.path {
		return &target{src: from, line: line, character: col}, nil
	}
	var src *source
	if within(b.root, path) {
		s, err := b.open(ctx, path)
		if err != nil {
			return nil, err
		}
		src = s
	} else {
		data, err := readBounded(path)
		if err != nil {
			return nil, err
		}
		src = newSource(path, string(data))
	}
	return &target{src: src, line: line, character: col}, nil
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
// to the definition of its import path.
func (b *Bridge) importedPackageDir(ctx context.Context, src *source, fset *token.FileSet, imp *ast.ImportSpec) (string, string, error) {
	pos := fset.Position(imp.Path.Pos() + 1)
	line := pos.Line - 1
	col := utf16Col(src.line(line), pos.Column-1)
	var locs []protocol.Location
	t := &target{src: src, line: line, character: col}
	if err := b.client.Call(ctx, "textDocument/definition", t.position(), &locs); err != nil {
		return "", "", goplsError(err)
	}
	if len(locs) == 0 {
		return "", "", fmt.Errorf("gopls cannot find package %s; is it in go.mod?", imp.Path.Value)
	}
	p, err := lspclient.URIPath(string(locs[0].URI))
	if err != nil {
		return "", "", err
	}
	dir := filepath.Dir(p)
	f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly)
	if err != nil {
		return "", "", fmt.Errorf("cannot read package %s: %v", imp.Path.Value, err)
	}
	return dir, f.Name.Name, nil
}

// findDecls searches the Go files of package pkgName in dir for the
// declaration ref names. The text of from, the file in scope, is used in
// place of its copy on disk.
func findDecls(dir, pkgName string, ref symbolRef, from *source) []decl {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []decl
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		p := filepath.Join(dir, name)
		var text any
		if from != nil && p == from.path {
			text = from.text
		}
		fset := token.NewFileSet()
		f, _ := parser.ParseFile(fset, p, text, parser.SkipObjectResolution)
		if f == nil || f.Name.Name != pkgName {
			continue
		}
		var lines []string
		lineText := func(n int) string {
			if lines == nil {
				var data []byte
				if s, ok := text.(string); ok {
					data = []byte(s)
				} else {
					data, _ = os.ReadFile(p)
				}
				lines = strings.Split(string(data), "\n")
			}
			if n < len(lines) {
				return lines[n]
			}
			return ""
		}
		add := func(id *ast.Ident, desc string) {
			pos := fset.Position(id.Pos())
			line := pos.Line - 1
			out = append(out, decl{path: p, line: line, col: utf16Col(lineText(line), pos.Column-1), desc: desc})
		}
		for _, d := range f.Decls {
			matchDecl(d, ref, add)
		}
	}
	return out
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
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// searchWorkspace finds declarations of ref across the workspace with
// gopls's symbol search, keeping exact matches only.
func (b *Bridge) searchWorkspace(ctx context.Context, ref symbolRef) ([]decl, error) {
	var syms []struct {
		Name          string            `json:"name"`
		Kind          int               `json:"kind"`
		ContainerName string            `json:"containerName"`
		Location      protocol.Location `json:"location"`
	}
	if err := b.client.Call(ctx, "workspace/symbol", map[string]any{"query": ref.name}, &syms); err != nil {
		return nil, goplsError(err)
	}
	want := ref.name
	if ref.typ != "" {
		want = ref.typ + "." + ref.name
	}
	var out []decl
	for _, s := range syms {
		if s.Name != want && !strings.HasSuffix(s.Name, "."+want) {
			continue
		}
		p, err := lspclient.URIPath(string(s.Location.URI))
		if err != nil || !within(b.root, p) {
			continue
		}
		start := s.Location.Range.Start
		out = append(out, decl{path: p, line: int(start.Line), col: int(start.Character), desc: s.Name})
	}
	return out, nil
}

// goplsError turns an error from the client into a sentence for the model.
func goplsError(err error) error {
	var re *lspclient.ResponseError
	switch {
	case errors.As(err, &re):
		return fmt.Errorf("gopls: %s", re.Message)
	case errors.Is(err, lspclient.ErrTimeout):
		return fmt.Errorf("gopls did not answer in time; retry, or narrow the call")
	case errors.Is(err, lspclient.ErrExited):
		return fmt.Errorf("gopls stopped while answering; retry the call")
	}
	return err
}
