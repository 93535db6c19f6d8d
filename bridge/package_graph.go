package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/graph"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
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
	Notes     Notes      `json:"notes,omitempty" jsonschema:"how to see the packages counted in more, as the text says it"`
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
				fmt.Fprintf(&b, " and %d more%s", n, p.Notes.Parens())
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
			list(graph.ImportersName(d), paths)
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

// packageGraphTool is go_package_graph's entry in the catalogue (see ToolSpec).
var packageGraphTool = ToolSpec{
	Name:        "go_package_graph",
	Title:       "Package dependency graph",
	Description: "Package dependencies: a package's imports (workspace, standard library, external) and the workspace packages importing it (reverse dependencies), depth 1-3. Who depends on it?",
	Narrow:      "narrow the call: pass fewer packagePaths, a smaller depth or a smaller limit",
	Instruction: "a package's imports, and who imports it.",
	Skill:       "A package's imports and importers",
	Doc:         "for `packagePaths`, their direct imports grouped `workspace`, `std` and `external`, and the workspace packages importing them (reverse dependencies), `depth` 1–3 levels of importers, tests named as such (`path_test`, `path (test)`); from gopls's own knowledge (`gopls.list_imports`, and its references to the package clause), each list bounded by `limit` with what it leaves out",
	Summary:     "a package's imports and the workspace packages importing it",
	Framing:     []string{`^imports \w+: `, `^importers( at depth \d+)?: `, `none in the workspace$`, ` and \d+ more`},
	Good:        Sample{Args: `{"packagePaths": ["example.com/shapes/shapes"], "depth": 2}`, Want: "importers: example.com/shapes, "},
	Bad:         Sample{Args: `{"packagePaths": ["example.com/nope"]}`, Want: `^example\.com/nope: no such package `},
	Questions: []string{
		"which packages import this package",
		"reverse dependencies of a package",
		"what does this package depend on",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.packageGraph) },
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
		p, err := gocmd.ImportPathArg(arg)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	workspace, err := b.graph.Workspace(ctx, b.caller(ctx))
	if err != nil {
		return nil, err
	}
	g := &graphWalk{b: b, ctx: ctx, walk: b.graph.Walk(ctx, workspace), workspace: workspace, limit: limit}
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

// graphWalk places packages in the import graph for one go_package_graph
// call, its lists bounded to limit.
type graphWalk struct {
	b         *Bridge
	ctx       context.Context
	walk      *graph.Walk
	workspace map[string]string // import path → directory
	limit     int
}

// place finds the imports and the importers (to depth) of the package at
// path.
func (g *graphWalk) place(path string, depth int) (PackageGraph, error) {
	p := PackageGraph{Importers: [][]string{}}
	dir, err := g.b.graph.PackageDir(g.ctx, path, g.workspace)
	if err != nil {
		return p, err
	}
	file, imports, err := g.walk.Imports(dir)
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
	levels, err := g.walk.ImporterLevels(seen, level, depth)
	for d, names := range levels {
		p.Importers = append(p.Importers, g.cut(&p, graph.ImportersName(d), names))
	}
	return p, err
}

// cut bounds list to the limit, counting the rest in p.More under name.
func (g *graphWalk) cut(p *PackageGraph, name string, list []string) []string {
	if len(list) <= g.limit {
		return list
	}
	p.More.Set(name, len(list)-g.limit)
	p.Notes = Notes{render.RaiseToSee}
	return list[:g.limit]
}
