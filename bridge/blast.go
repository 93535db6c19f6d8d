package bridge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/graph"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// BlastRadius is who a change to a symbol reaches: the packages that refer
// to it, with their test and non-test places counted apart, and the
// packages that import those.
type BlastRadius struct {
	Packages  mcp.OrderedMap[PackageRefs] `json:"packages" jsonschema:"packages referring to the symbol (its declaration included), by import path"`
	Importers [][]string                  `json:"importers" jsonschema:"workspace packages importing those, by depth: [0] import one directly, [1] import those, ...; tests named as in go_package_graph"`
}

// PackageRefs counts one package's references to a symbol.
type PackageRefs struct {
	Code  int `json:"code,omitempty" jsonschema:"references in non-test files"`
	Tests int `json:"tests,omitempty" jsonschema:"references in _test.go files"`
}

// radius finds the blast radius of a symbol from all its references
// (locs, not only those listed), to depth levels of importers.
func (b *Bridge) radius(ctx context.Context, locs []protocol.Location, depth int) (*BlastRadius, error) {
	workspace, err := b.graph.Workspace(ctx, b.caller(ctx))
	if err != nil {
		return nil, err
	}
	g := b.graph.Walk(ctx, workspace)
	out := &BlastRadius{Importers: [][]string{}}
	// One non-test file of each package with references: gopls finds a
	// package's importers from any of its files.
	var level []string
	seen := map[string]bool{}
	for _, l := range locs {
		p, err := lspclient.URIPath(string(l.URI))
		if err != nil {
			continue
		}
		pkg := g.PathOf(filepath.Dir(p))
		if pkg == "" {
			// Outside the workspace's packages (a snippet, the module
			// cache): no importers to follow.
			continue
		}
		refs := out.Packages.Ref(pkg)
		if strings.HasSuffix(p, "_test.go") {
			// Counted here, the package's tests are not its importers
			// again below.
			refs.Tests++
			seen[pkg+"_test"] = true
			continue
		}
		refs.Code++
		if !seen[pkg] {
			seen[pkg] = true
			level = append(level, p)
		}
	}
	for _, pkg := range out.Packages.Keys() {
		seen[pkg] = true
	}
	levels, err := g.ImporterLevels(seen, level, depth)
	if err != nil {
		return nil, err
	}
	out.Importers = append(out.Importers, levels...)
	return out, nil
}

// checkRadius checks the depth a call asks the blast radius to.
func checkRadius(depth int) error {
	if depth < 0 || depth > 3 {
		return errors.New("radius must be 1, 2 or 3 (levels of importers of the packages that refer to the symbol); leave it out for the references alone")
	}
	return nil
}

// render writes the blast radius: a line per package with its counts,
// then a line per depth of importers.
func (r *BlastRadius) render(b *strings.Builder) {
	fmt.Fprintf(b, "blast radius: %s\n", render.Plural(r.Packages.Len(), "package"))
	r.Packages.All(func(pkg string, p PackageRefs) {
		var parts []string
		if p.Code > 0 {
			parts = append(parts, fmt.Sprintf("%d in code", p.Code))
		}
		if p.Tests > 0 {
			parts = append(parts, fmt.Sprintf("%d in tests", p.Tests))
		}
		fmt.Fprintf(b, "%s: %s\n", pkg, strings.Join(parts, ", "))
	})
	if len(r.Importers) == 0 {
		b.WriteString("importers: none beyond these\n")
	}
	for d, names := range r.Importers {
		fmt.Fprintf(b, "%s: %s\n", graph.ImportersName(d), strings.Join(names, ", "))
	}
}
