package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/target"
	"go.lsp.dev/protocol"
)

// Shared by go_call_hierarchy and go_type_hierarchy: both prepare an item at
// a position, then ask gopls for its neighbours level by level.

const (
	defaultHierarchyLimit = 50
	maxHierarchyDepth     = 3
)

// hierItem is an LSP CallHierarchyItem or TypeHierarchyItem, which have the
// same shape. raw is the item exactly as gopls sent it, to be sent back
// when asking for its neighbours (its data field is gopls's own).
type hierItem struct {
	Name           string         `json:"name"`
	Kind           int            `json:"kind"`
	URI            string         `json:"uri"`
	Range          protocol.Range `json:"range"`
	SelectionRange protocol.Range `json:"selectionRange"`
	raw            json.RawMessage
}

func (h *hierItem) UnmarshalJSON(data []byte) error {
	type plain hierItem
	if err := json.Unmarshal(data, (*plain)(h)); err != nil {
		return err
	}
	h.raw = slices.Clone(data)
	return nil
}

func (h *hierItem) key() string {
	s := h.SelectionRange.Start
	return fmt.Sprintf("%s:%d:%d", h.URI, s.Line, s.Character)
}

// hierEdge is one neighbour of an item: for calls, with the ranges of the
// calls, which lie in sitesURI.
type hierEdge struct {
	item     hierItem
	sites    []protocol.Range
	sitesURI string
}

// hierarchyNode is one item of a call or type hierarchy.
type hierarchyNode struct {
	name, kind string
	file       string
	line, char int    // of the declaration's name
	text       string // the declaring source line
	// sites are where the calls are: in this caller for incoming calls,
	// in the calling function for outgoing ones.
	sites []callSite
	// repeated says the item is shown elsewhere in the tree already (e.g.
	// recursion), and not expanded again.
	repeated bool
	// depth is 1 for a neighbour of the root, 2 for a neighbour of that,
	// ...; the list is depth-first, so a node's neighbours follow it.
	depth int
}

// callSite is where one call is made.
type callSite struct {
	file       string
	line, char int
	text       string
}

// hierarchyArgs checks depth and limit and applies their defaults.
func hierarchyArgs(depth, limit int) (int, int, error) {
	switch {
	case depth == 0:
		depth = 1
	case depth < 0 || depth > maxHierarchyDepth:
		return 0, 0, fmt.Errorf("depth must be 1, 2 or 3")
	}
	limit, err := render.LimitOr(limit, defaultHierarchyLimit)
	return depth, limit, err
}

// prepareHierarchy asks gopls for the item at t with method (a
// textDocument/prepare... request). what names the expected item in the
// error when there is none.
func (b *Bridge) prepareHierarchy(ctx context.Context, t *target.Target, method, what string) (hierItem, error) {
	var items []hierItem
	if err := b.client.Call(ctx, method, t.Position(), &items); err != nil {
		return hierItem{}, goplsError(err)
	}
	if len(items) == 0 {
		return hierItem{}, fmt.Errorf("no %s at %s:%d:%d; put the position on its name", what, b.displayPath(t.Src.Path), t.Line, t.Character)
	}
	return items[0], nil
}

// hierarchyTree is the result of expanding a hierarchy.
type hierarchyTree struct {
	nodes     []hierarchyNode
	total     int
	truncated bool
}

// expandHierarchy builds the tree below root, depth levels deep, with
// fetch giving each item's neighbours. The items of a level are fetched
// concurrently. At most limit nodes are listed; an item seen before is
// listed but not expanded again.
func (b *Bridge) expandHierarchy(ctx context.Context, root hierItem, depth, limit int,
	fetch func(context.Context, hierItem) ([]hierEdge, error)) (*hierarchyTree, error) {
	type node struct {
		edge     hierEdge
		repeated bool
		children []*node
	}
	top := &node{edge: hierEdge{item: root}}
	seen := map[string]bool{root.key(): true}
	level := []*node{top}
	tree := &hierarchyTree{}
	listed := 0
	for d := 1; d <= depth && len(level) > 0; d++ {
		edges := make([][]hierEdge, len(level))
		errs := make([]error, len(level))
		render.ForEach(ctx, len(level), func(i int) {
			edges[i], errs[i] = fetch(ctx, level[i].edge.item)
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := errors.Join(errs...); err != nil {
			return nil, goplsError(err)
		}
		var next []*node
		for i, parent := range level {
			es := slices.DeleteFunc(edges[i], func(e hierEdge) bool {
				return b.buffers.Foreign(b.caller(ctx), e.item.URI) || e.sitesURI != "" && b.buffers.Foreign(b.caller(ctx), e.sitesURI)
			})
			slices.SortFunc(es, func(a, b hierEdge) int {
				as, bs := a.item.SelectionRange.Start, b.item.SelectionRange.Start
				return cmp.Or(cmp.Compare(a.item.URI, b.item.URI), cmp.Compare(as.Line, bs.Line), cmp.Compare(as.Character, bs.Character))
			})
			for _, e := range es {
				tree.total++
				if listed == limit {
					tree.truncated = true
					continue
				}
				listed++
				n := &node{edge: e}
				if k := e.item.key(); seen[k] {
					n.repeated = true
				} else {
					seen[k] = true
					next = append(next, n)
				}
				parent.children = append(parent.children, n)
			}
		}
		level = next
	}

	lines := b.buffers.LineCache()
	var flatten func(ns []*node, depth int)
	flatten = func(ns []*node, depth int) {
		for _, n := range ns {
			h := b.hierarchyNode(lines, n.edge.item)
			h.repeated, h.depth = n.repeated, depth
			for _, r := range n.edge.sites {
				h.sites = append(h.sites, callSite{
					file: b.displayURI(n.edge.sitesURI),
					line: int(r.Start.Line),
					char: int(r.Start.Character),
					text: lines.Line(n.edge.sitesURI, int(r.Start.Line)),
				})
			}
			tree.nodes = append(tree.nodes, h)
			flatten(n.children, depth+1)
		}
	}
	flatten(top.children, 1)
	return tree, nil
}

// hierarchyNode describes an item, without its neighbours.
func (b *Bridge) hierarchyNode(lines *render.Lines, it hierItem) hierarchyNode {
	start := it.SelectionRange.Start
	return hierarchyNode{
		name: it.Name,
		kind: render.SymbolKind(it.Kind),
		file: b.displayURI(it.URI),
		line: int(start.Line),
		char: int(start.Character),
		text: lines.Line(it.URI, int(start.Line)),
	}
}

// loc is where the node is declared, as path:line:character.
func (n hierarchyNode) loc() string {
	return fmt.Sprintf("%s:%d:%d", n.file, n.line, n.char)
}

// treeLines renders the nodes, one line each (or, with bySite, one line
// per call site), indented by two spaces a level below the first.
func treeLines(nodes []hierarchyNode, bySite bool) []string {
	lines := []string{}
	for _, n := range nodes {
		indent := strings.Repeat("  ", max(n.depth-1, 0))
		more := ""
		if n.repeated {
			more = " (repeated, not expanded)"
		}
		switch {
		case bySite && len(n.sites) > 0:
			for _, s := range n.sites {
				lines = append(lines, fmt.Sprintf("%s%s %s:%d:%d: %s%s", indent, n.name, s.file, s.line, s.char, s.text, more))
			}
		case n.kind == "func" || n.kind == "method":
			lines = append(lines, fmt.Sprintf("%s%s %s: %s%s", indent, n.name, n.loc(), n.text, more))
		default:
			lines = append(lines, fmt.Sprintf("%s%s: %s%s", indent, n.loc(), n.text, more))
		}
	}
	return lines
}
