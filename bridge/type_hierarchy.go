package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	Root       HierarchyNode  `json:"root" jsonschema:"the type asked about"`
	Supertypes *TypeRelations `json:"supertypes,omitempty" jsonschema:"interfaces the type implements (when asked)"`
	Subtypes   *TypeRelations `json:"subtypes,omitempty" jsonschema:"types that implement it (when asked)"`

	depth int // levels followed
}

// TypeRelations are the types found in one direction.
type TypeRelations struct {
	Total     int             `json:"total" jsonschema:"types found, over the levels followed"`
	Truncated bool            `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Types     []HierarchyNode `json:"types"`
}

// Render implements mcp.Renderer.
func (o *TypeHierarchyOutput) Render() string {
	var b strings.Builder
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	fmt.Fprintf(&b, "%s %s (%s)\n", o.Root.Kind, o.Root.Name, o.Root.loc())
	for _, r := range []struct {
		name string
		rel  *TypeRelations
	}{{"supertypes", o.Supertypes}, {"subtypes", o.Subtypes}} {
		if r.rel == nil {
			continue
		}
		if r.rel.Total == 0 {
			fmt.Fprintf(&b, "no %s\n", r.name)
			continue
		}
		b.WriteString(plural(r.rel.Total, strings.TrimSuffix(r.name, "s")))
		if o.depth > 1 {
			fmt.Fprintf(&b, " over %d levels", o.depth)
		}
		if r.rel.Truncated {
			b.WriteString(" (list truncated; raise limit to see more)")
		}
		b.WriteString(":\n")
		renderTree(&b, r.rel.Types, false)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (b *Bridge) addTypeHierarchy(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_type_hierarchy",
		Title:       "Type hierarchy",
		Description: "The interfaces a type implements (supertypes) and the types implementing an interface (subtypes), up to 3 levels deep.",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass a smaller depth or limit, or one direction",
	}, b.typeHierarchy)
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
	depth, limit, err := hierarchyArgs(in.Depth, in.Limit)
	if err != nil {
		return nil, err
	}
	t, err := b.resolve(ctx, in.At)
	if err != nil {
		return nil, err
	}
	defer t.release()
	root, err := b.prepareHierarchy(ctx, t, "textDocument/prepareTypeHierarchy", "named type")
	if err != nil {
		return nil, err
	}
	out := &TypeHierarchyOutput{Note: t.note, depth: depth, Root: b.hierarchyNode(b.newLineCache(), b.newImportPaths(), root)}
	for _, dir := range dirs {
		method := "typeHierarchy/" + dir
		tree, err := b.expandHierarchy(ctx, root, depth, limit, func(ctx context.Context, it hierItem) ([]hierEdge, error) {
			var items []hierItem
			if err := b.client.Call(ctx, method, map[string]any{"item": it.raw}, &items); err != nil {
				return nil, err
			}
			edges := make([]hierEdge, len(items))
			for i, item := range items {
				edges[i] = hierEdge{item: item}
			}
			return edges, nil
		})
		if err != nil {
			return nil, err
		}
		rel := &TypeRelations{Total: tree.total, Truncated: tree.truncated, Types: tree.nodes}
		if dir == "supertypes" {
			out.Supertypes = rel
		} else {
			out.Subtypes = rel
		}
	}
	return out, nil
}
