package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// CallHierarchyInput is the input of go_call_hierarchy.
type CallHierarchyInput struct {
	At
	Direction string `json:"direction,omitempty" jsonschema:"\"incoming\" (callers, default) or \"outgoing\" (callees)"`
	Depth     int    `json:"depth,omitempty" jsonschema:"1 to 3 (default 1)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"default 50, over all levels"`
}

// CallHierarchyOutput is the result of go_call_hierarchy.
type CallHierarchyOutput struct {
	Note      string          `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Direction string          `json:"direction" jsonschema:"incoming or outgoing"`
	Root      HierarchyNode   `json:"root" jsonschema:"the function asked about"`
	Total     int             `json:"total" jsonschema:"callers (incoming) or callees (outgoing) found, over the levels followed"`
	Truncated bool            `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Calls     []HierarchyNode `json:"calls" jsonschema:"the callers or callees, each with its call sites and the next level"`

	depth int // levels followed
}

// Render implements mcp.Renderer.
func (o *CallHierarchyOutput) Render() string {
	var b strings.Builder
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	noun := "caller"
	if o.Direction == "outgoing" {
		noun = "callee"
	}
	fmt.Fprintf(&b, "%s of %s (%s)", plural(o.Total, noun), o.Root.Name, o.Root.loc())
	if o.depth > 1 {
		fmt.Fprintf(&b, " over %d levels", o.depth)
	}
	if o.Truncated {
		b.WriteString(" (list truncated; raise limit to see more)")
	}
	if len(o.Calls) > 0 {
		b.WriteString(":")
	}
	b.WriteString("\n")
	// Incoming: where each caller calls. Outgoing: what each callee is.
	renderTree(&b, o.Calls, o.Direction == "incoming")
	return strings.TrimSuffix(b.String(), "\n")
}

func (b *Bridge) addCallHierarchy(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_call_hierarchy",
		Title:       "Call hierarchy",
		Description: "Callers (incoming, with call sites) or callees (outgoing) of a function or method, up to 3 levels deep.",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass a smaller depth or limit",
	}, b.callHierarchy)
}

func (b *Bridge) callHierarchy(ctx context.Context, in *CallHierarchyInput) (*CallHierarchyOutput, error) {
	// Callers in packages that just appeared on disk count too.
	ctx = lspclient.WorkspaceWide(ctx)
	dir := in.Direction
	switch dir {
	case "":
		dir = "incoming"
	case "incoming", "outgoing":
	default:
		return nil, errors.New(`direction must be "incoming" or "outgoing"`)
	}
	depth, limit, err := hierarchyArgs(in.Depth, in.Limit)
	if err != nil {
		return nil, err
	}
	t, err := b.resolve(ctx, in.At)
	if err != nil {
		return nil, err
	}
	defer t.release()
	root, err := b.prepareHierarchy(ctx, t, "textDocument/prepareCallHierarchy", "function or method")
	if err != nil {
		return nil, err
	}
	fetch := b.incomingCalls
	if dir == "outgoing" {
		fetch = b.outgoingCalls
	}
	tree, err := b.expandHierarchy(ctx, root, depth, limit, fetch)
	if err != nil {
		return nil, err
	}
	return &CallHierarchyOutput{
		Note:      t.note,
		Direction: dir,
		Root:      b.hierarchyNode(b.newLineCache(), b.newImportPaths(), root),
		Total:     tree.total,
		Truncated: tree.truncated,
		Calls:     tree.nodes,
		depth:     depth,
	}, nil
}

func (b *Bridge) incomingCalls(ctx context.Context, it hierItem) ([]hierEdge, error) {
	var calls []struct {
		From       hierItem         `json:"from"`
		FromRanges []protocol.Range `json:"fromRanges"`
	}
	if err := b.client.Call(ctx, "callHierarchy/incomingCalls", map[string]any{"item": it.raw}, &calls); err != nil {
		return nil, err
	}
	edges := make([]hierEdge, len(calls))
	for i, c := range calls {
		// The calls are in the caller.
		edges[i] = hierEdge{item: c.From, sites: c.FromRanges, sitesURI: c.From.URI}
	}
	return edges, nil
}

func (b *Bridge) outgoingCalls(ctx context.Context, it hierItem) ([]hierEdge, error) {
	var calls []struct {
		To         hierItem         `json:"to"`
		FromRanges []protocol.Range `json:"fromRanges"`
	}
	if err := b.client.Call(ctx, "callHierarchy/outgoingCalls", map[string]any{"item": it.raw}, &calls); err != nil {
		return nil, err
	}
	edges := make([]hierEdge, len(calls))
	for i, c := range calls {
		// The calls are in the calling function, it.
		edges[i] = hierEdge{item: c.To, sites: c.FromRanges, sitesURI: it.URI}
	}
	return edges, nil
}
