package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/hierarchy"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
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
	Note    string    `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Root    string    `json:"root" jsonschema:"the function asked about: name path:line:col; 1-based, byte columns, as go vet prints them"`
	Total   int       `json:"total,omitempty" jsonschema:"callers or callees found, over the levels followed, when fewer are listed"`
	Notes   Notes     `json:"notes,omitempty" jsonschema:"that the list is cut at limit, and whose source lines are withheld since they lie outside the workspace root, as the text says it"`
	Callers *[]string `json:"callers,omitempty" jsonschema:"incoming calls, depth first, indented two spaces a level, one line per call site: caller path:line:col: source line; 1-based, byte columns, as go vet prints them"`
	Callees *[]string `json:"callees,omitempty" jsonschema:"outgoing calls, depth first, indented two spaces a level: callee path:line:col: its declaring line; 1-based, byte columns, as go vet prints them"`

	depth     int            // levels followed
	root      hierarchy.Node // what Root says
	found     int            // callers or callees found
	truncated bool           // fewer than found are listed
}

// Render implements mcp.Renderer.
func (o *CallHierarchyOutput) Render() string {
	var b strings.Builder
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	noun, calls := "caller", o.Callers
	if o.Callees != nil {
		noun, calls = "callee", o.Callees
	}
	total := o.Total
	if !o.truncated {
		total = o.found
	}
	fmt.Fprintf(&b, "%s of %s (%s)", render.Plural(total, noun), o.root.Name, o.root.Loc())
	if o.depth > 1 {
		fmt.Fprintf(&b, " over %d levels", o.depth)
	}
	b.WriteString(o.Notes.Parens())
	if len(*calls) > 0 {
		b.WriteString(":")
	}
	for _, c := range *calls {
		b.WriteString("\n" + c)
	}
	return b.String()
}

// callHierarchyTool is go_call_hierarchy's entry in the catalogue (see ToolSpec).
var callHierarchyTool = ToolSpec{
	Name:        "go_call_hierarchy",
	Title:       "Call hierarchy",
	Description: "Call hierarchy: who calls a function or method (callers, incoming, with call sites) and what it calls (callees, outgoing), up to 3 levels.",
	Narrow:      "narrow the call: pass a smaller depth or limit",
	Instruction: "who calls this function, and what does it call?",
	Skill:       "Who calls this function, and what does it call?",
	Doc:         "callers (`incoming`, with call sites) or callees (`outgoing`) of a function, `depth` 1–3",
	Summary:     "callers or callees of a function, 1–3 levels",
	Framing:     []string{`^\d+ (callers?|callees?) of `, ` over \d+ levels`},
	Good:        Sample{Args: `{"file": "shapes/shapes.go", "symbol": "TotalArea", "depth": 2}`, Want: "  main main.go:13:21:"},
	Bad:         Sample{Args: `{"file": "shapes/shapes.go", "symbol": "TotalArea", "direction": "sideways"}`, Want: `^direction must be "incoming" or "outgoing"`},
	Questions: []string{
		"find callers of a function",
		"what functions does this function call",
		"call graph of a method",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.callHierarchy) },
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
	depth, err := hierarchy.Depth(in.Depth)
	if err != nil {
		return nil, err
	}
	limit, err := limitOr(in.Limit, hierarchy.DefaultLimit)
	if err != nil {
		return nil, err
	}
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	root, err := b.hierarchies.Prepare(ctx, t, "textDocument/prepareCallHierarchy", "function or method")
	if err != nil {
		return nil, err
	}
	fetch := b.hierarchies.IncomingCalls
	if dir == "outgoing" {
		fetch = b.hierarchies.OutgoingCalls
	}
	tree, err := b.hierarchies.Expand(ctx, b.caller(ctx), root, depth, limit, fetch)
	if err != nil {
		return nil, err
	}
	rn := b.hierarchies.Node(root)
	out := &CallHierarchyOutput{
		Note:      t.Note,
		Root:      rn.Name + " " + rn.Loc(),
		truncated: tree.Truncated,
		depth:     depth,
		root:      rn,
		found:     tree.Total,
	}
	if out.truncated {
		out.Total = tree.Total
		out.Notes.Add(render.Truncated)
	}
	// The source lines of declarations and calls outside the root are
	// left out (the line cache reads through the gate): said once.
	var paths []string
	for _, n := range tree.Nodes {
		if dir == "incoming" {
			for _, site := range n.Sites {
				paths = append(paths, b.displayedPath(site.File))
			}
		} else {
			paths = append(paths, b.displayedPath(n.File))
		}
	}
	noun := "callee"
	if dir == "incoming" {
		noun = "call"
	}
	if files, n := b.notShown(paths...); n > 0 {
		out.Notes.Add(b.withheldText(n, noun, files))
	}
	// Incoming: where each caller calls. Outgoing: what each callee is.
	calls := hierarchy.Lines(tree.Nodes, dir == "incoming")
	if dir == "incoming" {
		out.Callers = &calls
	} else {
		out.Callees = &calls
	}
	return out, nil
}
