package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
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

// HierarchyNode is one item of a call or type hierarchy.
type HierarchyNode struct {
	Name      string     `json:"name"`
	Kind      string     `json:"kind" jsonschema:"func, method, type, struct, interface, ..."`
	Package   string     `json:"package,omitempty" jsonschema:"import path of the declaring package"`
	File      string     `json:"file"`
	Line      int        `json:"line" jsonschema:"0-based line of the declaration's name"`
	Character int        `json:"character"`
	Text      string     `json:"text,omitempty" jsonschema:"the declaring source line"`
	Sites     []CallSite `json:"sites,omitempty" jsonschema:"where the calls are: in this caller for incoming calls, in the calling function for outgoing ones"`
	Repeated  bool       `json:"repeated,omitempty" jsonschema:"already shown elsewhere in the tree (e.g. recursion), not expanded again"`
	Depth     int        `json:"depth" jsonschema:"1 for a neighbour of the root, 2 for a neighbour of that, ...; the list is depth-first, so a node's neighbours follow it"`
}

// CallSite is where one call is made.
type CallSite struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Text      string `json:"text,omitempty" jsonschema:"the source line"`
}

// hierarchyArgs checks depth and limit and applies their defaults.
func hierarchyArgs(depth, limit int) (int, int, error) {
	switch {
	case depth == 0:
		depth = 1
	case depth < 0 || depth > maxHierarchyDepth:
		return 0, 0, fmt.Errorf("depth must be 1, 2 or 3")
	}
	limit, err := limitOr(limit, defaultHierarchyLimit)
	return depth, limit, err
}

// prepareHierarchy asks gopls for the item at t with method (a
// textDocument/prepare... request). what names the expected item in the
// error when there is none.
func (b *Bridge) prepareHierarchy(ctx context.Context, t *target, method, what string) (hierItem, error) {
	var items []hierItem
	if err := b.client.Call(ctx, method, t.position(), &items); err != nil {
		return hierItem{}, goplsError(err)
	}
	if len(items) == 0 {
		return hierItem{}, fmt.Errorf("no %s at %s:%d:%d; put the position on its name", what, b.displayPath(t.src.path), t.line, t.character)
	}
	return items[0], nil
}

// hierarchyTree is the result of expanding a hierarchy.
type hierarchyTree struct {
	nodes     []HierarchyNode
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
		forEach(ctx, len(level), func(i int) {
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
				return b.foreign(ctx, e.item.URI) || e.sitesURI != "" && b.foreign(ctx, e.sitesURI)
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

	lines, paths := b.newLineCache(), b.newImportPaths()
	tree.nodes = []HierarchyNode{}
	var flatten func(ns []*node, depth int)
	flatten = func(ns []*node, depth int) {
		for _, n := range ns {
			h := b.hierarchyNode(lines, paths, n.edge.item)
			h.Repeated, h.Depth = n.repeated, depth
			for _, r := range n.edge.sites {
				h.Sites = append(h.Sites, CallSite{
					File:      b.displayURI(n.edge.sitesURI),
					Line:      int(r.Start.Line),
					Character: int(r.Start.Character),
					Text:      lines.line(n.edge.sitesURI, int(r.Start.Line)),
				})
			}
			tree.nodes = append(tree.nodes, h)
			flatten(n.children, depth+1)
		}
	}
	flatten(top.children, 1)
	return tree, nil
}

// hierarchyNode describes an item, without its neighbours. The package is
// found from the item's file: gopls's detail names the package of the
// item asked about, not the caller's, for incoming calls.
func (b *Bridge) hierarchyNode(lines *lineCache, paths *importPaths, it hierItem) HierarchyNode {
	start := it.SelectionRange.Start
	var pkg string
	if p, err := lspclient.URIPath(it.URI); err == nil {
		pkg = paths.of(filepath.Dir(p))
	}
	return HierarchyNode{
		Name:      it.Name,
		Kind:      symbolKind(it.Kind),
		Package:   pkg,
		File:      b.displayURI(it.URI),
		Line:      int(start.Line),
		Character: int(start.Character),
		Text:      lines.line(it.URI, int(start.Line)),
	}
}

// loc is where the node is declared, as path:line:character.
func (n HierarchyNode) loc() string {
	return fmt.Sprintf("%s:%d:%d", n.File, n.Line, n.Character)
}

// renderTree writes the nodes, one line each (or, with bySite, one line
// per call site), indented by depth.
func renderTree(b *strings.Builder, nodes []HierarchyNode, bySite bool) {
	for _, n := range nodes {
		indent := strings.Repeat("  ", max(n.Depth-1, 0))
		more := ""
		if n.Repeated {
			more = " (repeated, not expanded)"
		}
		switch {
		case bySite && len(n.Sites) > 0:
			for _, s := range n.Sites {
				fmt.Fprintf(b, "%s%s %s:%d:%d: %s%s\n", indent, n.Name, s.File, s.Line, s.Character, s.Text, more)
			}
		case n.Kind == "func" || n.Kind == "method":
			fmt.Fprintf(b, "%s%s %s: %s%s\n", indent, n.Name, n.loc(), n.Text, more)
		default:
			fmt.Fprintf(b, "%s%s: %s%s\n", indent, n.loc(), n.Text, more)
		}
	}
}
