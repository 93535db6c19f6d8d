package target

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// symbolResolver finds declarations for one call, caching what it parses.
type symbolResolver struct {
	res    *Resolver
	ctx    context.Context
	caller buffer.Caller
	t      *Target // keeps the buffers opened to ask gopls
	pkgs   map[string]*symbol.Package
	// scope is the file in scope, already parsed, or nil.
	scope *symbol.File
}

// resolveSymbol points t at the declaration of sym, as seen from the file
// scope, or across the workspace when scope is nil.
func (res *Resolver) resolveSymbol(ctx context.Context, caller buffer.Caller, t *Target, scope *buffer.Source, sym string) error {
	parts, recv, err := symbol.Split(sym)
	if err != nil {
		return err
	}
	r := &symbolResolver{res: res, ctx: ctx, caller: caller, t: t, pkgs: map[string]*symbol.Package{}}
	var decls []symbol.Decl
	pkgName := ""
	if scope != nil {
		fset, file, err := res.Trees.Parse(scope.Path, scope.Text, parser.SkipObjectResolution)
		if file == nil {
			return fmt.Errorf("cannot parse %s to find symbol %s: %s", res.Reads.Display(scope.Path), render.Quote(sym), render.ClipN(err.Error(), ask.MessageChars))
		}
		pkgName = file.Name.Name
		r.scope = &symbol.File{Path: scope.Path, Text: scope.Text, Fset: fset, AST: file}
		decls, err = r.inScope(scope, fset, file, parts, recv)
		if err != nil {
			return err
		}
	}
	if len(decls) == 0 {
		// Not declared in the scope of the file: perhaps elsewhere.
		decls, err = r.inWorkspace(symbol.Readings(parts, recv))
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
		var inFile []symbol.Decl
		for _, d := range decls {
			if scope != nil && d.Path == scope.Path {
				inFile = append(inFile, d)
			}
		}
		if len(inFile) != 1 {
			return res.ambiguous(sym, decls, scope == nil)
		}
		decls = inFile
	}
	d := decls[0]
	src := scope
	if scope == nil || d.Path != scope.Path {
		src, err = res.Buffers.OpenCurrent(ctx, caller, d.Path)
		if err != nil {
			return err
		}
		t.Keep(src)
	}
	t.Src, t.Line, t.Character = src, d.Line, d.Col
	if len(d.Via) > 0 {
		t.Note = fmt.Sprintf("%s is promoted through the embedded field %s; this is its declaration, %s", render.Clip(strings.TrimSpace(sym)), strings.Join(d.Via, "."), d.Desc)
	}
	return nil
}

func (res *Resolver) ambiguous(sym string, decls []symbol.Decl, workspace bool) error {
	slices.SortFunc(decls, func(x, y symbol.Decl) int {
		return cmp.Or(cmp.Compare(x.Path, y.Path), cmp.Compare(x.Line, y.Line))
	})
	var list []string
	for i, d := range decls {
		if i == 10 {
			list = append(list, fmt.Sprintf("and %d more", len(decls)-10))
			break
		}
		list = append(list, d.Desc+" at "+d.At.In(res.Reads.Display(d.Path)))
	}
	hint := "pass file with line and column of one of"
	if workspace {
		hint = "qualify it (pkg.Name, Type.Method), pass file for its scope, or pass file with line and column of one of"
	}
	return fmt.Errorf("symbol %s is ambiguous; %s: %s", render.Quote(sym), hint, strings.Join(list, "; "))
}

// inScope finds the parts as the file scope would: names of its package,
// or of the packages it imports.
func (r *symbolResolver) inScope(scope *buffer.Source, fset *token.FileSet, file *ast.File, parts []string, recv bool) ([]symbol.Decl, error) {
	dir, own := filepath.Dir(scope.Path), file.Name.Name
	imports := symbol.ImportNames(file)
	imported := func(name string) (string, string, bool, error) {
		imp, ok := imports[name]
		if !ok {
			return "", "", false, nil
		}
		d, p, err := r.res.ImportedPackageDir(r.ctx, scope, fset, imp)
		return d, p, true, err
	}
	switch len(parts) {
	case 1:
		return r.find(dir, own, symbol.Ref{Name: parts[0]}, scope), nil
	case 2:
		if !recv {
			if d, p, ok, err := imported(parts[0]); err != nil || ok {
				if err != nil {
					return nil, err
				}
				return r.find(d, p, symbol.Ref{Name: parts[1]}, scope), nil
			}
		}
		if found := r.find(dir, own, symbol.Ref{Type: parts[0], Name: parts[1]}, scope); len(found) > 0 {
			return found, nil
		}
		if parts[0] == own && !recv {
			return r.find(dir, own, symbol.Ref{Name: parts[1]}, scope), nil
		}
		return nil, nil
	}
	ref := symbol.Ref{Type: parts[1], Name: parts[2]}
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
func (r *symbolResolver) inWorkspace(refs []symbol.Ref) ([]symbol.Decl, error) {
	var found []symbol.Decl
	type key struct {
		path string
		at   place.Pos
	}
	seen := map[key]bool{}
	for _, ref := range refs {
		queries := []string{ref.Name}
		if ref.Type != "" {
			// The type's package, for a member promoted from elsewhere.
			queries = append(queries, ref.Type)
		}
		for _, q := range queries {
			pkgs, err := r.packagesDeclaring(q)
			if err != nil {
				return nil, err
			}
			for _, p := range pkgs {
				if ref.Pkg != "" && p.name != ref.Pkg {
					continue
				}
				for _, d := range r.find(p.dir, p.name, symbol.Ref{Type: ref.Type, Name: ref.Name}, nil) {
					if k := (key{d.Path, d.At}); !seen[k] {
						seen[k] = true
						found = append(found, d)
					}
				}
			}
		}
	}
	var inRoot []symbol.Decl
	for _, d := range found {
		if place.Within(r.res.Reads.Root(), d.Path) {
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
	if err := r.res.Client.Call(lspclient.WorkspaceWide(r.ctx), "workspace/symbol", map[string]any{"query": name}, &syms); err != nil {
		return nil, ask.Error(err)
	}
	var out []pkgDir
	seen := map[string]bool{}
	for _, s := range syms {
		if s.Name != name && !strings.HasSuffix(s.Name, "."+name) {
			continue
		}
		p, err := lspclient.URIPath(string(s.Location.URI))
		if err != nil || r.res.Buffers.ForeignPath(r.caller, p) {
			continue
		}
		dir := filepath.Dir(p)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		text, _ := r.res.textOf(p, nil)
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
func (r *symbolResolver) find(dir, pkgName string, ref symbol.Ref, from *buffer.Source) []symbol.Decl {
	// A declaration in the file in scope wins over the rest of its
	// package (see resolveSymbol), so when that file declares ref once
	// the other files need not be parsed: in a large package (net/http)
	// they are nearly all the cost of a call.
	if s := r.scope; s != nil && filepath.Dir(s.Path) == dir && s.AST.Name.Name == pkgName {
		one := &symbol.Package{Dir: dir, Name: pkgName, Files: []*symbol.File{s}}
		if own := one.Decls(ref); len(own) == 1 {
			return own
		}
	}
	pkg := r.load(dir, pkgName, from)
	direct := pkg.Decls(ref)
	if len(direct) > 0 || ref.Type == "" {
		return direct
	}
	return symbol.Promoted(pkg, ref.Type, ref.Name, func(pkg *symbol.Package, file *symbol.File, x ast.Expr) (*symbol.Package, string) {
		return r.embeddedType(pkg, file, x, from)
	})
}

// embeddedType finds the package and name of an embedded type written in
// file of pkg: a type of pkg itself, or pkg.T of a package file imports.
func (r *symbolResolver) embeddedType(pkg *symbol.Package, file *symbol.File, x ast.Expr, from *buffer.Source) (*symbol.Package, string) {
	switch t := symbol.BaseType(x).(type) {
	case *ast.Ident:
		return pkg, t.Name
	case *ast.SelectorExpr:
		id, ok := t.X.(*ast.Ident)
		if !ok {
			return nil, ""
		}
		imp, ok := symbol.ImportNames(file.AST)[id.Name]
		if !ok {
			return nil, ""
		}
		// gopls says where the import leads, asked from the file that
		// has it.
		src := from
		if src == nil || src.Path != file.Path {
			s, err := r.res.Buffers.OpenCurrent(r.ctx, r.caller, file.Path)
			if err != nil {
				return nil, ""
			}
			r.t.Keep(s)
			src = s
		}
		if src.Kind == buffer.AsContext {
			return nil, ""
		}
		dir, name, err := r.res.ImportedPackageDir(r.ctx, src, file.Fset, imp)
		if err != nil {
			return nil, ""
		}
		return r.load(dir, name, from), t.Sel.Name
	}
	return nil, ""
}

// load parses the files of package name in dir. The text of from, and of
// any file gopls holds open, is used in place of the file on disk.
func (r *symbolResolver) load(dir, name string, from *buffer.Source) *symbol.Package {
	key := dir + "\x00" + name
	if p, ok := r.pkgs[key]; ok {
		return p
	}
	p := &symbol.Package{Dir: dir, Name: name}
	r.pkgs[key] = p
	var paths []string
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			// Files of another build are in no package gopls knows; the
			// file in scope counts, whatever its constraints.
			inScope := r.scope != nil && r.scope.Path == path
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") && (inScope || r.res.Build.Includes(dir, e.Name())) {
				paths = append(paths, path)
			}
		}
	}
	// A snippet, or an overlay of a file not yet on disk: this call's,
	// or the session's from earlier calls.
	if from != nil && filepath.Dir(from.Path) == dir && !slices.Contains(paths, from.Path) {
		paths = append(paths, from.Path)
	}
	for _, path := range r.res.Buffers.UnsavedIn(r.caller, dir) {
		if !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	for _, path := range paths {
		text, ok := r.res.textOf(path, from)
		if !ok {
			continue
		}
		fset, f, _ := r.res.Trees.Parse(path, text, parser.SkipObjectResolution)
		if f == nil || f.Name.Name != name {
			continue
		}
		p.Files = append(p.Files, &symbol.File{Path: path, Text: text, Fset: fset, AST: f})
	}
	return p
}

// textOf returns the text of a file as gopls holds it: from's text, an
// open buffer's, or the file on disk; false if unreadable.
func (res *Resolver) textOf(path string, from *buffer.Source) (string, bool) {
	if from != nil && from.Path == path {
		return from.Text, true
	}
	return res.Buffers.CurrentText(path)
}

// ImportedPackageDir asks gopls where an imported package lives, by going
// to the definition of its import path in src, which gopls holds.
func (res *Resolver) ImportedPackageDir(ctx context.Context, src *buffer.Source, fset *token.FileSet, imp *ast.ImportSpec) (string, string, error) {
	pos := fset.Position(imp.Path.Pos() + 1)
	line := pos.Line - 1
	col := place.UTF16Col(src.Line(line), pos.Column-1)
	var locs []protocol.Location
	t := &Target{Src: src, Line: line, Character: col}
	if err := res.Client.Call(ctx, "textDocument/definition", t.Position(), &locs); err != nil {
		return "", "", ask.Error(err)
	}
	if len(locs) == 0 {
		return "", "", fmt.Errorf("gopls cannot find package %s; is it in go.mod?", render.Clip(imp.Path.Value))
	}
	p, err := lspclient.URIPath(string(locs[0].URI))
	if err != nil {
		return "", "", err
	}
	dir := filepath.Dir(p)
	text, ok := res.textOf(p, nil)
	if !ok && res.Withheld != nil {
		return "", "", errors.New(res.Withheld(p))
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, text, parser.PackageClauseOnly)
	if err != nil {
		return "", "", fmt.Errorf("cannot read package %s: %v", render.Clip(imp.Path.Value), err)
	}
	return dir, f.Name.Name, nil
}
