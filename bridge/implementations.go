package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/decl"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
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
	Note   string `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Symbol string `json:"symbol" jsonschema:"the type or method asked about"`
	Total  int    `json:"total,omitempty" jsonschema:"number of results, when fewer are listed"`
	Notes  Notes  `json:"notes,omitempty" jsonschema:"that the list is cut at limit, as the text says it"`
	// One of the two lists is given: which one says how the results
	// relate to the symbol.
	Implementations *Places `json:"implementations,omitempty" jsonschema:"when the symbol is an interface (or its method): the types (methods) implementing it, by file, as line:col: source line; 1-based, byte columns, as go vet prints them"`
	Interfaces      *Places `json:"interfaces,omitempty" jsonschema:"when the symbol is a concrete type (or method): the interfaces (methods) it satisfies, by file, as line:col: source line; 1-based, byte columns, as go vet prints them"`
	More            Counts  `json:"more,omitzero" jsonschema:"by file, how many are beyond the limit, not listed"`

	relation string
	found    int
}

// Render implements mcp.Renderer.
func (o *ImplementationsOutput) Render() string {
	var b strings.Builder
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	switch o.relation {
	case "implementations":
		fmt.Fprintf(&b, "%s of %s", render.Plural(o.found, "implementation"), o.Symbol)
	case "interfaces":
		fmt.Fprintf(&b, "%s satisfies %s", o.Symbol, render.Plural(o.found, "interface"))
	default:
		fmt.Fprintf(&b, "%s for %s", render.Plural(o.found, "implementation relation"), o.Symbol)
	}
	if o.found == 0 {
		return b.String()
	}
	b.WriteString(o.Notes.Parens() + "\n")
	results := o.Implementations
	if results == nil {
		results = o.Interfaces
	}
	render.WritePlaces(&b, results, &o.More)
	return strings.TrimSuffix(b.String(), "\n")
}

// implementationsTool is go_implementations's entry in the catalogue (see ToolSpec).
var implementationsTool = ToolSpec{
	Name:        "go_implementations",
	Title:       "Find implementations",
	Description: "Find implementations: types implementing an interface (methods implementing its method), or the interfaces a concrete type implements.",
	Narrow:      "narrow the call: pass a smaller limit",
	Instruction: "implementations of an interface; interfaces a type implements.",
	Skill:       "Which types implement this interface; which interfaces does this type implement?",
	Doc:         "the types implementing an interface (or method), or the interfaces a type (or method) satisfies",
	Summary:     "implementations of an interface, or the interfaces a type satisfies",
	Framing:     []string{`^\d+ implementations? of `, ` satisfies \d+ interfaces?`},
	Good:        Sample{Args: `{"file": "shapes/shapes.go", "symbol": "Shape"}`, Want: "2 implementations of Shape"},
	Bad:         Sample{Args: `{"file": "shapes/shapes.go", "line": 1, "column": 500}`, Want: `^column 500 is past the end of line 1`},
	Questions: []string{
		"which types implement this interface",
		"what interfaces does this struct satisfy",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.implementations) },
}

func (b *Bridge) implementations(ctx context.Context, in *ImplementationsInput) (*ImplementationsOutput, error) {
	// Types in packages that just appeared on disk count too.
	ctx = lspclient.WorkspaceWide(ctx)
	limit, err := limitOr(in.Limit, defaultImplementationLimit)
	if err != nil {
		return nil, err
	}
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	// The answer's direction depends on whether the target is abstract,
	// which its declaration tells; both are asked for at once.
	var locs, defs []protocol.Location
	var implErr, defErr error
	ask.ForEach(ctx, 2, func(i int) {
		if i == 0 {
			implErr = b.client.Call(ctx, "textDocument/implementation", t.Position(), &locs)
		} else {
			defErr = b.client.Call(ctx, "textDocument/definition", t.Position(), &defs)
		}
	})
	var re *lspclient.ResponseError
	if implErr == nil && defErr != nil && !errors.As(defErr, &re) {
		// gopls failed as a whole, not just to find the declaration,
		// which says which way the answer goes.
		implErr = defErr
	}
	if implErr != nil {
		return nil, ask.Error(implErr)
	}
	locs = b.buffers.DropForeign(b.caller(ctx), locs)
	b.sortLocations(locs)
	out := &ImplementationsOutput{
		Note:     t.Note,
		Symbol:   symbol.IdentAt(t.Src.Line(t.Line), t.Character),
		relation: b.relation(defs, defErr),
		found:    len(locs),
	}
	lines := b.buffers.LineCache()
	list := render.NewPlaceList(limit)
	for _, l := range locs {
		list.Add(b.displayURI(string(l.URI)), func() string { return lines.Place(l) })
	}
	out.More = list.More
	if list.Truncated() {
		out.Total, out.Notes = out.found, Notes{render.Truncated}
	}
	if out.relation == "interfaces" {
		out.Interfaces = &list.Files
	} else {
		out.Implementations = &list.Files
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
	g := decl.NewFiles(decl.Options{Text: b.buffers.CurrentText, Lines: &b.lines}).Get(path)
	if g == nil {
		return ""
	}
	start := defs[0].Range.Start
	p := g.Pos(int(start.Line), int(start.Character))
	abstract, found := false, false
	ast.Inspect(g.AST, func(n ast.Node) bool {
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

// sortLocations orders locations in the workspace first, then by file and
// position.
func (b *Bridge) sortLocations(locs []protocol.Location) {
	outside := func(l protocol.Location) int {
		if p, err := lspclient.URIPath(string(l.URI)); err == nil && iplace.Within(b.root, p) {
			return 0
		}
		return 1
	}
	slices.SortFunc(locs, func(x, y protocol.Location) int {
		return cmp.Or(cmp.Compare(outside(x), outside(y)), cmp.Compare(x.URI, y.URI),
			cmp.Compare(x.Range.Start.Line, y.Range.Start.Line),
			cmp.Compare(x.Range.Start.Character, y.Range.Start.Character))
	})
}
