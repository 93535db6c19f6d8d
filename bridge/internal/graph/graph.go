package graph

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// A Graph finds packages and their importers through gopls.
type Graph struct {
	Root    string
	Client  *lspclient.Client
	Buffers *buffer.Set
	Reads   *place.Gate
	Lines   *memo.Lines
	Env     *gocmd.Env
	Build   *gocmd.Build

	// known is gopls's list of the workspace's packages, kept while the
	// tree's layout stays (see lspclient.Client.LayoutEpoch): the list
	// changes only with a module, a directory or a directory's first or
	// last Go file, and asking gopls for it on GOROOT/src cost 30–200 ms
	// of a busy machine at every call, since every document opened or
	// closed makes a new generation.
	mu    sync.Mutex
	known *workspacePackages
}

// workspacePackages is one answer of gopls.packages for the root: the
// directory of each package by import path, unfiltered.
type workspacePackages struct {
	layout uint64
	dirs   map[string]string
}

// Workspace maps the import paths of the workspace's packages to their
// directories, from gopls's view of the workspace; other sessions'
// snippets than c's are left out.
func (g *Graph) Workspace(ctx context.Context, c buffer.Caller) (map[string]string, error) {
	all, err := g.workspacePackages(ctx)
	if err != nil {
		return nil, err
	}
	dirs := make(map[string]string, len(all))
	for path, dir := range all {
		if !g.Buffers.ForeignPackage(c, path) {
			dirs[path] = dir
		}
	}
	return dirs, nil
}

// workspacePackages returns every package gopls has in the workspace by
// import path, from the list kept (see Graph.known) or from gopls. The
// map returned is shared: not to be modified.
func (g *Graph) workspacePackages(ctx context.Context) (map[string]string, error) {
	if err := g.Client.WaitLoaded(ctx); err != nil {
		return nil, ask.Error(err)
	}
	layout := g.Client.LayoutEpoch()
	g.mu.Lock()
	known := g.known
	g.mu.Unlock()
	if known != nil && known.layout == layout {
		return known.dirs, nil
	}
	var res struct {
		Packages []struct {
			Path       string
			ModulePath string
			ForTest    string
		}
		Module map[string]struct {
			GoMod string
		}
	}
	args := map[string]any{"Files": []string{lspclient.FileURI(g.Root)}, "Recursive": true}
	if err := g.Client.ExecuteCommand(ctx, "gopls.packages", args, &res); err != nil {
		return nil, ask.Error(err)
	}
	dirs := map[string]string{}
	for _, p := range res.Packages {
		mod, ok := res.Module[p.ModulePath]
		if p.ForTest != "" || !ok {
			continue
		}
		gomod, err := lspclient.URIPath(mod.GoMod)
		if err != nil {
			continue
		}
		rel, ok := strings.CutPrefix(p.Path, p.ModulePath)
		if !ok {
			continue
		}
		dirs[p.Path] = filepath.Join(filepath.Dir(gomod), filepath.FromSlash(rel))
	}
	g.mu.Lock()
	g.known = &workspacePackages{layout: layout, dirs: dirs}
	g.mu.Unlock()
	return dirs, nil
}

// PackageDir finds the directory of the package at path: a workspace
// package from gopls, a standard one in GOROOT, and otherwise where the go
// command finds it (offline: it looks, never downloads).
func (g *Graph) PackageDir(ctx context.Context, path string, workspace map[string]string) (string, error) {
	if dir, ok := workspace[path]; ok {
		return dir, nil
	}
	first, _, _ := strings.Cut(path, "/")
	if !strings.Contains(first, ".") {
		if dir := filepath.Join(g.Env.GOROOT(), "src", filepath.FromSlash(path)); g.Env.GOROOT() != "" && isDir(dir) {
			return dir, nil
		}
	}
	listCtx, cancel := context.WithTimeout(ctx, gocmd.Timeout)
	defer cancel()
	// As gopls's go command looks (--env GOMODCACHE=... included, vendor/
	// where it is consistent), and never downloading.
	outb, err := gocmd.Run(listCtx, g.Root, g.Client.OfflineGoEnv(),
		"list", "-find", "-e", "-f", "{{.Dir}}", "--", path)
	if err == nil {
		if dir := strings.TrimSpace(string(outb)); dir != "" && isDir(dir) {
			return dir, nil
		}
	}
	if ctx.Err() == nil && listCtx.Err() != nil {
		return "", fmt.Errorf("the go command did not say within %s where the package is; retry, or name a workspace package", gocmd.Timeout)
	}
	return "", errors.New("no such package in the workspace, the standard library or the module's dependencies")
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// A Walk places packages in the import graph for one call.
type Walk struct {
	g         *Graph
	ctx       context.Context
	workspace map[string]string // import path → directory
	byDir     map[string]string // directory → import path
}

// Walk starts a walk for one call, over the workspace's packages
// (Workspace's answer; nil where only Imports is asked).
func (g *Graph) Walk(ctx context.Context, workspace map[string]string) *Walk {
	w := &Walk{g: g, ctx: ctx, workspace: workspace, byDir: map[string]string{}}
	for path, dir := range workspace {
		w.byDir[dir] = path
	}
	return w
}

// ImportersName names the list of importers at depth d (0-based).
func ImportersName(d int) string {
	if d == 0 {
		return "importers"
	}
	return fmt.Sprintf("importers at depth %d", d+1)
}

// ImporterLevels walks the workspace packages importing those of level
// (one file of each), breadth first, depth levels at most: each level
// sorted, packages in seen (which it extends) left out. A package's own
// tests are named only when the package itself does not import it.
func (w *Walk) ImporterLevels(seen map[string]bool, level []string, depth int) ([][]string, error) {
	var levels [][]string
	for d := 0; d < depth && len(level) > 0; d++ {
		found, err := w.importers(level)
		if err != nil {
			return levels, err
		}
		var names []string
		level = nil
		slices.SortStableFunc(found, func(x, y importer) int { return render.FalseFirst(x.test, y.test) })
		for _, imp := range found {
			if seen[imp.name] || imp.test && seen[strings.TrimSuffix(imp.name, " (test)")] {
				continue
			}
			seen[imp.name] = true
			names = append(names, imp.name)
			if !imp.test {
				level = append(level, imp.file)
			}
		}
		if len(names) == 0 {
			break
		}
		slices.Sort(names)
		levels = append(levels, names)
	}
	return levels, nil
}

// Imports returns a file of the package in dir, as gopls knows it, and
// the package's direct imports.
func (w *Walk) Imports(dir string) (string, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, fmt.Errorf("cannot read its directory: %v", place.PathErrText(err))
	}
	var lastErr error
	tried := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if !w.g.Build.Includes(dir, name) {
			continue
		}
		file := filepath.Join(dir, name)
		var res struct {
			PackageImports []struct{ Path string }
		}
		err := w.g.Client.ExecuteCommand(w.ctx, "gopls.list_imports", map[string]any{"URI": lspclient.FileURI(file)}, &res)
		if err == nil {
			var paths []string
			for _, imp := range res.PackageImports {
				paths = append(paths, imp.Path)
			}
			return file, paths, nil
		}
		if w.ctx.Err() != nil {
			return "", nil, w.ctx.Err()
		}
		// A file gopls builds in no package (excluded by build flags
		// the default context does not know): try the next.
		lastErr = err
		if tried++; tried == 3 {
			break
		}
	}
	if lastErr != nil {
		return "", nil, ask.Error(lastErr)
	}
	return "", nil, errors.New("its directory has no Go files for this platform")
}

// importer is a package importing another, and a file of it that does.
type importer struct {
	name string // import path; path_test, or path (test), for tests
	file string
	test bool
}

// importers asks gopls, for each file, which workspace packages import
// the file's package.
func (w *Walk) importers(files []string) ([]importer, error) {
	var (
		mu       sync.Mutex
		found    []importer
		firstErr error
	)
	ask.ForEach(w.ctx, len(files), func(i int) {
		got, err := w.importersOf(files[i])
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return
		}
		found = append(found, got...)
	})
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return found, nil
}

// importersOf lists the packages importing the package of file.
func (w *Walk) importersOf(file string) ([]importer, error) {
	text, ok := w.g.Buffers.CurrentText(file)
	if !ok {
		return nil, fmt.Errorf("cannot read %s", w.g.Reads.Display(file))
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, text, parser.PackageClauseOnly)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the package clause of %s", w.g.Reads.Display(file))
	}
	at := fset.Position(f.Name.Pos())
	l, c := at.Line-1, 0
	if lines := w.g.Lines.Lines(file, text); l < len(lines) {
		c = place.UTF16Col(lines[l], at.Column-1)
	}
	var locs []protocol.Location
	params := map[string]any{
		"textDocument": map[string]any{"uri": lspclient.FileURI(file)},
		"position":     map[string]any{"line": l, "character": c},
		"context":      map[string]any{"includeDeclaration": false},
	}
	if err := w.g.Client.Call(w.ctx, "textDocument/references", params, &locs); err != nil {
		return nil, ask.Error(err)
	}
	scratch := w.g.Buffers.ScratchRoot()
	lc := w.g.Buffers.LineCache()
	var out []importer
	seen := map[string]bool{}
	for _, loc := range locs {
		p, err := lspclient.URIPath(string(loc.URI))
		if err != nil || place.Within(scratch, p) {
			continue
		}
		// The package's own files' clauses are among the references.
		if strings.HasPrefix(lc.Line(string(loc.URI), int(loc.Range.Start.Line)), "package ") {
			continue
		}
		imp := importer{file: p, name: w.PathOf(filepath.Dir(p))}
		if imp.name == "" || seen[p] {
			continue
		}
		seen[p] = true
		if strings.HasSuffix(p, "_test.go") {
			imp.test = true
			if pkg := w.g.packageName(p); strings.HasSuffix(pkg, "_test") {
				imp.name += "_test"
			} else {
				imp.name += " (test)"
			}
		}
		out = append(out, imp)
	}
	return out, nil
}

// PathOf is the import path of the workspace package in dir.
func (w *Walk) PathOf(dir string) string {
	if p, ok := w.byDir[dir]; ok {
		return p
	}
	return gocmd.ImportPath(w.g.Env, w.g.Reads, dir)
}

// packageName is the package clause's name in the file at path, or "".
func (g *Graph) packageName(path string) string {
	text, ok := g.Buffers.CurrentText(path)
	if !ok {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, text, parser.PackageClauseOnly)
	if err != nil {
		return ""
	}
	return f.Name.Name
}

// FilePackage is the package gopls builds a file in.
type FilePackage struct {
	Path, Name string
	Files      []string // absolute, in gopls's order
}

// FilePackage asks gopls for the package of the file at path: the
// narrowest one that has it, as gopls mcp's tools take it (the test
// variant for a test file).
func (g *Graph) FilePackage(ctx context.Context, path string) (*FilePackage, error) {
	uri := lspclient.FileURI(path)
	var syms struct {
		PackageName string
		Files       []string
	}
	if err := g.Client.ExecuteCommand(ctx, "gopls.package_symbols", map[string]any{"URI": uri}, &syms); err != nil {
		return nil, ask.Error(err)
	}
	var pkgs struct {
		Packages []struct {
			Path    string
			ForTest string
		}
	}
	if err := g.Client.ExecuteCommand(ctx, "gopls.packages", map[string]any{"Files": []string{uri}}, &pkgs); err != nil {
		return nil, ask.Error(err)
	}
	out := &FilePackage{Name: syms.PackageName}
	test := strings.HasSuffix(path, "_test.go")
	xtest := strings.HasSuffix(syms.PackageName, "_test")
	for _, p := range pkgs.Packages {
		var fits bool
		switch {
		case !test:
			fits = p.ForTest == ""
		case xtest:
			fits = p.ForTest != "" && strings.HasSuffix(p.Path, "_test")
		default:
			fits = p.ForTest != "" && p.Path == p.ForTest
		}
		if fits {
			out.Path = p.Path
			break
		}
	}
	if out.Path == "" {
		return nil, fmt.Errorf("gopls builds %s in no package of the workspace; check its build constraints and package clause with go_diagnostics", g.Reads.Display(path))
	}
	for _, f := range syms.Files {
		if p, err := lspclient.URIPath(f); err == nil {
			out.Files = append(out.Files, p)
		}
	}
	return out, nil
}
