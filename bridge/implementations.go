package bridge

import (
	"context"
	"fmt"
	"go/ast"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

const defaultImplementationLimit = 50

// ImplementationsInput is the input of go_implementations.
type ImplementationsInput struct {
	At
	Limit int `json:"limit,omitempty" jsonschema:"default 50"`
}

// ImplementationsOutput is the result of go_implementations.
type ImplementationsOutput struct {
	Note            string      `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Symbol          string      `json:"symbol" jsonschema:"the type or method asked about"`
	Relation        string      `json:"relation,omitempty" jsonschema:"\"implementations\" when the symbol is an interface or interface method, \"interfaces\" when it is concrete and the results are what it satisfies"`
	Total           int         `json:"total" jsonschema:"number of results"`
	Truncated       bool        `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Files           []FileCount `json:"files,omitempty" jsonschema:"results per file, given when the list is truncated"`
	Implementations []Loc       `json:"implementations" jsonschema:"for an interface (or its method): the types (methods) that implement it; for a concrete type (or method): the interfaces it satisfies"`
}

// Render implements mcp.Renderer.
func (o *ImplementationsOutput) Render() string {
	var b strings.Builder
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	switch o.Relation {
	case "implementations":
		fmt.Fprintf(&b, "%s of %s", plural(o.Total, "implementation"), o.Symbol)
	case "interfaces":
		fmt.Fprintf(&b, "%s satisfies %s", o.Symbol, plural(o.Total, "interface"))
	default:
		fmt.Fprintf(&b, "%s for %s", plural(o.Total, "implementation relation"), o.Symbol)
	}
	if o.Total == 0 {
		return b.String()
	}
	if o.Truncated {
		fmt.Fprintf(&b, " (%d listed; raise limit to see more)", len(o.Implementations))
	}
	b.WriteString(":\n")
	listed := map[string]int{}
	for _, l := range o.Implementations {
		listed[l.File]++
		b.WriteString(l.String() + "\n")
	}
	if o.Truncated {
		renderMore(&b, o.Files, listed, 10)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (b *Bridge) addImplementations(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_implementations",
		Title:       "Find implementations",
		Description: "The types implementing an interface (the methods implementing an interface method), or the interfaces a concrete type (method) satisfies.",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass a smaller limit",
	}, b.implementations)
}

func (b *Bridge) implementations(ctx context.Context, in *ImplementationsInput) (*ImplementationsOutput, error) {
	// Types in packages that just appeared on disk count too.
	ctx = lspclient.WorkspaceWide(ctx)
	limit, err := limitOr(in.Limit, defaultImplementationLimit)
	if err != nil {
		return nil, err
	}
	t, err := b.resolve(ctx, in.At)
	if err != nil {
		return nil, err
	}
	defer t.release()
	// The answer's direction depends on whether the target is abstract,
	// which its declaration tells; both are asked for at once.
	var locs, defs []protocol.Location
	var implErr, defErr error
	forEach(ctx, 2, func(i int) {
		if i == 0 {
			implErr = b.client.Call(ctx, "textDocument/implementation", t.position(), &locs)
		} else {
			defErr = b.client.Call(ctx, "textDocument/definition", t.position(), &defs)
		}
	})
	if implErr != nil {
		return nil, goplsError(implErr)
	}
	locs = b.dropForeign(ctx, locs)
	b.sortLocations(locs)
	out := &ImplementationsOutput{
		Note:            t.note,
		Symbol:          identAt(t.src.line(t.line), t.character),
		Relation:        b.relation(defs, defErr),
		Total:           len(locs),
		Implementations: []Loc{},
	}
	lines := b.newLineCache()
	var counts fileCounts
	for _, l := range locs {
		loc := lines.loc(l)
		counts.add(loc.File)
		if len(out.Implementations) == limit {
			out.Truncated = true
			continue
		}
		out.Implementations = append(out.Implementations, loc)
	}
	if out.Truncated {
		out.Files = counts
	}
	return out, nil
}

// relation says what the implementation answer for a target declared at
// defs lists: "implementations" for an interface or interface method,
// "interfaces" for a concrete type or method, "" when it cannot tell.
func (b *Bridge) relation(defs []protocol.Location, err error) string {
	if err != nil || len(defs) == 0 {
		return ""
	}
	path, err := lspclient.URIPath(string(defs[0].URI))
	if err != nil {
		return ""
	}
	g := b.newGoFiles().get(path)
	if g == nil {
		return ""
	}
	start := defs[0].Range.Start
	p := g.pos(int(start.Line), int(start.Character))
	abstract, found := false, false
	ast.Inspect(g.file, func(n ast.Node) bool {
		if found || n == nil || p < n.Pos() || p >= n.End() {
			return false
		}
		switch n := n.(type) {
		case *ast.TypeSpec:
			if n.Name.Pos() == p {
				_, abstract = n.Type.(*ast.InterfaceType)
				found = true
			}
		case *ast.FuncDecl:
			if n.Name.Pos() == p {
				found = true
			}
		case *ast.InterfaceType:
			for _, m := range n.Methods.List {
				for _, id := range m.Names {
					if id.Pos() == p {
						abstract, found = true, true
					}
				}
			}
		}
		return !found
	})
	switch {
	case !found:
		return ""
	case abstract:
		return "implementations"
	}
	return "interfaces"
}
