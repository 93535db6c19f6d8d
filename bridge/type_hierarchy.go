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

// TypeHierarchyInput is the input of go_type_hierarchy.
type TypeHierarchyInput struct {
	At
	Direction string `json:"direction,omitempty" jsonschema:"\"supertypes\", \"subtypes\" or \"both\" (default)"`
	Depth     int    `json:"depth,omitempty" jsonschema:"1 to 3 (default 1)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"default 50 per direction"`
}

// TypeHierarchyOutput is the result of go_type_hierarchy.
type TypeHierarchyOutput struct {
	Note       string         `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Root       string         `json:"root" jsonschema:"the type asked about: kind name path:line:col; 1-based, byte columns, as go vet prints them"`
	Supertypes *TypeRelations `json:"supertypes,omitempty" jsonschema:"interfaces the type implements (when asked)"`
	Subtypes   *TypeRelations `json:"subtypes,omitempty" jsonschema:"types that implement it (when asked)"`

	depth int            // levels followed
	root  hierarchy.Node // what Root says
}

// TypeRelations are the types found in one direction.
type TypeRelations struct {
	Total int      `json:"total,omitempty" jsonschema:"types found, over the levels followed, when fewer are listed"`
	Notes Notes    `json:"notes,omitempty" jsonschema:"that the list is cut at limit, and whose source lines are withheld since they lie outside the workspace root, as the text says it"`
	Types []string `json:"types,omitempty" jsonschema:"depth first, indented two spaces a level, as path:line:col: declaring line; 1-based, byte columns, as go vet prints them"`

	truncated bool // fewer than total are listed
}

// Render implements mcp.Renderer.
func (o *TypeHierarchyOutput) Render() string {
	var b strings.Builder
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	fmt.Fprintf(&b, "%s %s (%s)\n", o.root.Kind, o.root.Name, o.root.Loc())
	for _, r := range []struct {
		name string
		rel  *TypeRelations
	}{{"supertypes", o.Supertypes}, {"subtypes", o.Subtypes}} {
		if r.rel == nil {
			continue
		}
		total := r.rel.Total
		if !r.rel.truncated {
			total = len(r.rel.Types)
		}
		if total == 0 {
			fmt.Fprintf(&b, "no %s\n", r.name)
			continue
		}
		b.WriteString(render.Plural(total, strings.TrimSuffix(r.name, "s")))
		if o.depth > 1 {
			fmt.Fprintf(&b, " over %d levels", o.depth)
		}
		b.WriteString(r.rel.Notes.Parens() + ":\n")
		for _, t := range r.rel.Types {
			b.WriteString(t + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// typeHierarchyTool is go_type_hierarchy's entry in the catalogue (see ToolSpec).
var typeHierarchyTool = ToolSpec{
	Name:        "go_type_hierarchy",
	Title:       "Type hierarchy",
	Description: "Type hierarchy: interfaces a type implements (supertypes) and types implementing an interface (subtypes), up to 3 levels.",
	Narrow:      "narrow the call: pass a smaller depth or limit, or one direction",
	Instruction: "supertypes and subtypes of a type.",
	Skill:       "Which types implement this interface; which interfaces does this type implement?",
	Doc:         "supertypes and subtypes of a named type, `depth` 1–3",
	Summary:     "supertypes and subtypes of a type",
	Framing:     []string{`^(\d+ (supertypes?|subtypes?)( over \d+ levels)?:|no (supertypes|subtypes))$`},
	Good:        Sample{Args: `{"file": "shapes/shapes.go", "symbol": "Shape"}`, Want: "2 subtypes:"},
	Bad:         Sample{Args: `{"file": "shapes/shapes.go", "symbol": "Rect", "depth": 99}`, Want: `^depth must be 1, 2 or 3`},
	Questions: []string{
		"type hierarchy of an interface",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.typeHierarchy) },
}

func (b *Bridge) typeHierarchy(ctx context.Context, in *TypeHierarchyInput) (*TypeHierarchyOutput, error) {
	// Subtypes in packages that just appeared on disk count too.
	ctx = lspclient.WorkspaceWide(ctx)
	var dirs []string
	switch in.Direction {
	case "", "both":
		dirs = []string{"supertypes", "subtypes"}
	case "supertypes", "subtypes":
		dirs = []string{in.Direction}
	default:
		return nil, errors.New(`direction must be "supertypes", "subtypes" or "both"`)
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
	root, err := b.hierarchies.Prepare(ctx, t, "textDocument/prepareTypeHierarchy", "named type")
	if err != nil {
		return nil, err
	}
	rn := b.hierarchies.Node(root)
	out := &TypeHierarchyOutput{Note: t.Note, depth: depth, Root: rn.Kind + " " + rn.Name + " " + rn.Loc(), root: rn}
	for _, dir := range dirs {
		tree, err := b.hierarchies.Expand(ctx, b.caller(ctx), root, depth, limit, b.hierarchies.Types(dir))
		if err != nil {
			return nil, err
		}
		rel := &TypeRelations{truncated: tree.Truncated, Types: hierarchy.Lines(tree.Nodes, false)}
		if rel.truncated {
			rel.Total, rel.Notes = tree.Total, Notes{render.Truncated}
		}
		// The declaring lines of types outside the root are left out.
		var paths []string
		for _, n := range tree.Nodes {
			paths = append(paths, b.displayedPath(n.File))
		}
		if files, n := b.notShown(paths...); n > 0 {
			rel.Notes.Add(b.withheldText(n, "type", files))
		}
		if dir == "supertypes" {
			out.Supertypes = rel
		} else {
			out.Subtypes = rel
		}
	}
	return out, nil
}
