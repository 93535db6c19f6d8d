package bridge

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

	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// defaultGraphLimit bounds each list of go_package_graph's answer.
const defaultGraphLimit = 100

// PackageGraphInput is the input of go_package_graph.
type PackageGraphInput struct {
	PackagePaths []string `json:"packagePaths" jsonschema:"import paths, e.g. [\"net/http\"]"`
	Depth        int      `json:"depth,omitempty" jsonschema:"levels of importers, 1-3 (default 1)"`
	Limit        int      `json:"limit,omitempty" jsonschema:"per list, default 100"`
}

// PackageGraphOutput is the result of go_package_graph.
type PackageGraphOutput struct {
	Packages mcp.OrderedMap[PackageGraph] `json:"packages" jsonschema:"by import path"`
	Errors   mcp.OrderedMap[string]       `json:"errors,omitzero" jsonschema:"packages that could not be placed, by import path, with why"`
}

// PackageGraph is one package's place in the import graph.
type PackageGraph struct {
	// Imports are the packages it imports directly, by group.
	Imports mcp.OrderedMap[[]string] `json:"imports" jsonschema:"direct imports by group: workspace, std (the standard library), external (dependencies)"`
	// Importers are the workspace packages that import it: those that
	// do directly first, then those that import them, and so on.
	Importers [][]string `json:"importers" jsonschema:"workspace packages importing it, by depth: [0] import it directly, [1] import those, ...; a test package is named path_test, or path (test) for a package's own tests"`
	More      Counts     `json:"more,omitzero" jsonschema:"lists cut by limit, by list (imports GROUP, importers, importers at depth N), with how many they leave out"`
}

// Render implements mcp.Renderer: for each package, its path, then a line
// per group of imports and per depth of importers.
func (o *PackageGraphOutput) Render() string {
	var b strings.Builder
	for i, path := range o.Packages.Keys() {
		p, _ := o.Packages.Get(path)
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(path + "\n")
		list := func(name string, paths []string) {
			b.WriteString(name + ": ")
			if len(paths) == 0 {
				b.WriteString("none")
			}
			b.WriteString(strings.Join(paths, ", "))
			if n, ok := p.More.Get(name); ok {
				fmt.Fprintf(&b, " and %d more (raise limit to see them)", n)
			}
			b.WriteString("\n")
		}
		if p.Imports.Len() == 0 {
			b.WriteString("imports: none\n")
		}
		p.Imports.All(func(group string, paths []string) { list("imports "+group, paths) })
		if len(p.Importers) == 0 {
			b.WriteString("importers: none in the workspace\n")
		}
		for d, paths := range p.Importers {
			list(importersName(d), paths)
		}
	}
	o.Errors.All(func(path, why string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: %s\n", path, why)
	})
	return strings.TrimSuffix(b.String(), "\n")
}

// importersName names the list of importers at depth d (0-based).
func importersName(d int) string {
	if d == 0 {
		return "importers"
	}
	return fmt.Sprintf("importers at depth %d", d+1)
}

func (b *Bridge) addPackageGraph(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_package_graph",
		Title:       "Package dependency graph",
		Description: "Package dependencies: a package's imports (workspace, standard library, external) and the workspace packages importing it (reverse dependencies), depth 1-3. Who depends on it?",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass fewer packagePaths, a smaller depth or a smaller limit",
	}, b.packageGraph)
}

func (b *Bridge) packageGraph(ctx context.Context, in *PackageGraphInput) (*PackageGraphOutput, error) {
	// Importers in packages that just appeared on disk count too.
	ctx = lspclient.WorkspaceWide(ctx)
	if len(in.PackagePaths) == 0 {
		return nil, errors.New(`packagePaths is empty; pass import paths such as ["net/http"] or ["example.com/m/store"]`)
	}
	depth := in.Depth
	switch {
	case depth == 0:
		depth = 1
	case depth < 1 || depth > 3:
		return nil, errors.New("depth must be 1, 2 or 3 (levels of importers); leave it out for direct importers only")
	}
	limit, err := limitOr(in.Limit, defaultGraphLimit)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, arg := range in.PackagePaths {
		p, err := importPathArg(arg)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	workspace, err := b.workspacePackages(ctx)
	if err != nil {
		return nil, err
	}
	g := &graphWalk{b: b, ctx: ctx, workspace: workspace, byDir: map[string]string{}, limit: limit}
	for path, dir := range workspace {
		g.byDir[dir] = path
	}
	out := &PackageGraphOutput{}
	for _, path := range paths {
		p, err := g.place(path, depth)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out.Errors.Set(path, err.Error())
			continue
		}
		out.Packages.Set(path, p)
	}
	if out.Packages.Len() == 0 && out.Errors.Len() == 1 {
		path := out.Errors.Keys()[0]
		why, _ := out.Errors.Get(path)
		return nil, fmt.Errorf("%s: %s", path, why)
	}
	return out, nil
}

// graphWalk places packages in the import graph for one call.
type graphWalk struct {
	b         *Bridge
	ctx       context.Context
	workspace map[string]string // import path → directory
	byDir     map[string]string // directory → import path
	limit     int
}

// place finds the imports and the importers (to depth) of the package at
// path.
func (g *graphWalk) place(path string, depth int) (PackageGraph, error) {
	p := PackageGraph{Importers: [][]string{}}
	dir, err := g.b.packageDir(g.ctx, path, g.workspace)
	if err != nil {
		return p, err
	}
	file, imports, err := g.imports(dir)
	if err != nil {
		return p, err
	}
	groups := map[string][]string{}
	for _, imp := range imports {
		group := "external"
		switch _, inWorkspace := g.workspace[imp]; {
		case inWorkspace:
			group = "workspace"
		case gocmd.IsStdPath(imp):
			group = "std"
		}
		groups[group] = append(groups[group], imp)
	}
	for _, group := range []string{"workspace", "std", "external"} {
		if list := groups[group]; len(list) > 0 {
			p.Imports.Set(group, g.cut(&p, "imports "+group, list))
		}
	}

	// Each level's importers, found from one file of each package of the
	// level before: gopls lists the imports of a package by the
	// workspace's packages as the references to its package clause.
	seen := map[string]bool{path: true}
	level := []string{file}
	levels, err := g.importerLevels(seen, level, depth)
	for d, names := range levels {
		p.Importers = append(p.Importers, g.cut(&p, importersName(d), names))
	}
	return p, err
}

// importerLevels walks the workspace packages importing those of level
// (one file of each), breadth first, depth levels at most: each level
// sorted, packages in seen (which it extends) left out. A package's own
// tests are named only when the package itself does not import it.
func (g *graphWalk) importerLevels(seen map[string]bool, level []string, depth int) ([][]string, error) {
	var levels [][]string
	for d := 0; d < depth && len(level) > 0; d++ {
		found, err := g.importers(level)
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

// cut bounds list to the limit, counting the rest in p.More under name.
func (g *graphWalk) cut(p *PackageGraph, name string, list []string) []string {
	if len(list) <= g.limit {
		return list
	}
	p.More.Set(name, len(list)-g.limit)
	return list[:g.limit]
}

// imports returns a file of the package in dir, as gopls knows it, and
// the package's direct imports.
func (g *graphWalk) imports(dir string) (string, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, fmt.Errorf("cannot read its directory: %v", iplace.PathErrText(err))
	}
	var lastErr error
	tried := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if !g.b.build.Includes(dir, name) {
			continue
		}
		file := filepath.Join(dir, name)
		var res struct {
			PackageImports []struct{ Path string }
		}
		err := g.b.client.ExecuteCommand(g.ctx, "gopls.list_imports", map[string]any{"URI": lspclient.FileURI(file)}, &res)
		if err == nil {
			var paths []string
			for _, imp := range res.PackageImports {
				paths = append(paths, imp.Path)
			}
			return file, paths, nil
		}
		if g.ctx.Err() != nil {
			return "", nil, g.ctx.Err()
		}
		// A file gopls builds in no package (excluded by build flags
		// the default context does not know): try the next.
		lastErr = err
		if tried++; tried == 3 {
			break
		}
	}
	if lastErr != nil {
		return "", nil, goplsError(lastErr)
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
func (g *graphWalk) importers(files []string) ([]importer, error) {
	var (
		mu       sync.Mutex
		found    []importer
		firstErr error
	)
	forEach(g.ctx, len(files), func(i int) {
		got, err := g.importersOf(files[i])
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
	if err := g.ctx.Err(); err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return found, nil
}

// importersOf lists the packages importing the package of file.
func (g *graphWalk) importersOf(file string) ([]importer, error) {
	text, ok := g.b.buffers.CurrentText(file)
	if !ok {
		return nil, fmt.Errorf("cannot read %s", g.b.displayPath(file))
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, text, parser.PackageClauseOnly)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the package clause of %s", g.b.displayPath(file))
	}
	at := fset.Position(f.Name.Pos())
	l, c := at.Line-1, 0
	if lines := g.b.lines.Lines(file, text); l < len(lines) {
		c = iplace.UTF16Col(lines[l], at.Column-1)
	}
	var locs []protocol.Location
	params := map[string]any{
		"textDocument": map[string]any{"uri": lspclient.FileURI(file)},
		"position":     map[string]any{"line": l, "character": c},
		"context":      map[string]any{"includeDeclaration": false},
	}
	if err := g.b.client.Call(g.ctx, "textDocument/references", params, &locs); err != nil {
		return nil, goplsError(err)
	}
	scratch := g.b.buffers.ScratchRoot()
	lc := g.b.buffers.LineCache()
	var out []importer
	seen := map[string]bool{}
	for _, loc := range locs {
		p, err := lspclient.URIPath(string(loc.URI))
		if err != nil || iplace.Within(scratch, p) {
			continue
		}
		// The package's own files' clauses are among the references.
		if strings.HasPrefix(lc.Line(string(loc.URI), int(loc.Range.Start.Line)), "package ") {
			continue
		}
		imp := importer{file: p, name: g.pathOf(filepath.Dir(p))}
		if imp.name == "" || seen[p] {
			continue
		}
		seen[p] = true
		if strings.HasSuffix(p, "_test.go") {
			imp.test = true
			if pkg := packageName(g.b, p); strings.HasSuffix(pkg, "_test") {
				imp.name += "_test"
			} else {
				imp.name += " (test)"
			}
		}
		out = append(out, imp)
	}
	return out, nil
}

// pathOf is the import path of the workspace package in dir.
func (g *graphWalk) pathOf(dir string) string {
	if p, ok := g.byDir[dir]; ok {
		return p
	}
	return gocmd.ImportPath(&g.b.env, g.b.reads, dir)
}

// packageName is the package clause's name in the file at path, or "".
func packageName(b *Bridge, path string) string {
	text, ok := b.buffers.CurrentText(path)
	if !ok {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, text, parser.PackageClauseOnly)
	if err != nil {
		return ""
	}
	return f.Name.Name
}
