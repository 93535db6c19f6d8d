package hierarchy

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/target"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

const (
	// DefaultLimit is the number of nodes listed when a call gives no
	// limit.
	DefaultLimit = 50
	// MaxDepth is the deepest a hierarchy is walked.
	MaxDepth = 3
)

// Depth checks a call's depth and applies its default, 1.
func Depth(depth int) (int, error) {
	switch {
	case depth == 0:
		return 1, nil
	case depth < 0 || depth > MaxDepth:
		return 0, fmt.Errorf("depth must be 1, 2 or 3")
	}
	return depth, nil
}

// Item is an LSP CallHierarchyItem or TypeHierarchyItem, which have the
// same shape. raw is the item exactly as gopls sent it, to be sent back
// when asking for its neighbours (its data field is gopls's own).
type Item struct {
	Name           string         `json:"name"`
	Kind           int            `json:"kind"`
	URI            string         `json:"uri"`
	Range          protocol.Range `json:"range"`
	SelectionRange protocol.Range `json:"selectionRange"`
	raw            json.RawMessage
}

// UnmarshalJSON keeps the item as sent besides its fields.
func (h *Item) UnmarshalJSON(data []byte) error {
	type plain Item
	if err := json.Unmarshal(data, (*plain)(h)); err != nil {
		return err
	}
	h.raw = slices.Clone(data)
	return nil
}

// itemKey identifies an item by where its name is.
type itemKey struct {
	uri string
	at  protocol.Position
}

func (h *Item) key() itemKey { return itemKey{h.URI, h.SelectionRange.Start} }

// Edge is one neighbour of an item: for calls, with the ranges of the
// calls, which lie in sitesURI.
type Edge struct {
	item     Item
	sites    []protocol.Range
	sitesURI string
}

// Fetch gives an item's neighbours in one direction.
type Fetch func(context.Context, Item) ([]Edge, error)

// Node is one item of a call or type hierarchy.
type Node struct {
	Name, Kind string
	File       string
	At         place.Pos // of the declaration's name
	Text       string    // the declaring source line
	// Sites are where the calls are: in this caller for incoming calls,
	// in the calling function for outgoing ones.
	Sites []Site
	// Repeated says the item is shown elsewhere in the tree already (e.g.
	// recursion), and not expanded again.
	Repeated bool
	// Depth is 1 for a neighbour of the root, 2 for a neighbour of that,
	// ...; the list is depth-first, so a node's neighbours follow it.
	Depth int
}

// Loc is where the node is declared, as path:line:col.
func (n Node) Loc() string { return n.At.In(n.File) }

// Site is where one call is made.
type Site struct {
	File string
	At   place.Pos
	Text string
}

// Tree is the result of expanding a hierarchy.
type Tree struct {
	Nodes     []Node
	Total     int
	Truncated bool
}

// A Walker asks gopls for hierarchies and describes their items.
type Walker struct {
	Client  *lspclient.Client
	Buffers *buffer.Set
	Reads   *place.Gate
}

// Prepare asks gopls for the item at t with method (a
// textDocument/prepare... request). what names the expected item in the
// error when there is none.
func (w *Walker) Prepare(ctx context.Context, t *target.Target, method, what string) (Item, error) {
	var items []Item
	if err := w.Client.Call(ctx, method, t.Position(), &items); err != nil {
		return Item{}, ask.Error(err)
	}
	if len(items) == 0 {
		return Item{}, fmt.Errorf("no %s at %s; put the position on its name", what, t.Pos().In(w.Reads.Display(t.Src.Path)))
	}
	return items[0], nil
}

// IncomingCalls gives an item's callers, with the calls they make.
func (w *Walker) IncomingCalls(ctx context.Context, it Item) ([]Edge, error) {
	var calls []struct {
		From       Item             `json:"from"`
		FromRanges []protocol.Range `json:"fromRanges"`
	}
	if err := w.Client.Call(ctx, "callHierarchy/incomingCalls", map[string]any{"item": it.raw}, &calls); err != nil {
		return nil, err
	}
	edges := make([]Edge, len(calls))
	for i, c := range calls {
		// The calls are in the caller.
		edges[i] = Edge{item: c.From, sites: c.FromRanges, sitesURI: c.From.URI}
	}
	return edges, nil
}

// OutgoingCalls gives an item's callees, with the calls made to them.
func (w *Walker) OutgoingCalls(ctx context.Context, it Item) ([]Edge, error) {
	var calls []struct {
		To         Item             `json:"to"`
		FromRanges []protocol.Range `json:"fromRanges"`
	}
	if err := w.Client.Call(ctx, "callHierarchy/outgoingCalls", map[string]any{"item": it.raw}, &calls); err != nil {
		return nil, err
	}
	edges := make([]Edge, len(calls))
	for i, c := range calls {
		// The calls are in the calling function, it.
		edges[i] = Edge{item: c.To, sites: c.FromRanges, sitesURI: it.URI}
	}
	return edges, nil
}

// Types gives the fetch of a type's supertypes or subtypes (dir).
func (w *Walker) Types(dir string) Fetch {
	method := "typeHierarchy/" + dir
	return func(ctx context.Context, it Item) ([]Edge, error) {
		var items []Item
		if err := w.Client.Call(ctx, method, map[string]any{"item": it.raw}, &items); err != nil {
			return nil, err
		}
		edges := make([]Edge, len(items))
		for i, item := range items {
			edges[i] = Edge{item: item}
		}
		return edges, nil
	}
}

// Expand builds the tree below root, depth levels deep, with fetch
// giving each item's neighbours. The items of a level are fetched
// concurrently. At most limit nodes are listed; an item seen before is
// listed but not expanded again. Items in other sessions' snippets than
// c's are left out.
func (w *Walker) Expand(ctx context.Context, c buffer.Caller, root Item, depth, limit int, fetch Fetch) (*Tree, error) {
	type node struct {
		edge     Edge
		repeated bool
		children []*node
	}
	top := &node{edge: Edge{item: root}}
	seen := map[itemKey]bool{root.key(): true}
	level := []*node{top}
	tree := &Tree{}
	listed := 0
	for d := 1; d <= depth && len(level) > 0; d++ {
		edges := make([][]Edge, len(level))
		errs := make([]error, len(level))
		ask.ForEach(ctx, len(level), func(i int) {
			edges[i], errs[i] = fetch(ctx, level[i].edge.item)
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := errors.Join(errs...); err != nil {
			return nil, ask.Error(err)
		}
		var next []*node
		for i, parent := range level {
			es := slices.DeleteFunc(edges[i], func(e Edge) bool {
				return w.Buffers.Foreign(c, e.item.URI) || e.sitesURI != "" && w.Buffers.Foreign(c, e.sitesURI)
			})
			slices.SortFunc(es, func(a, b Edge) int {
				as, bs := a.item.SelectionRange.Start, b.item.SelectionRange.Start
				return cmp.Or(cmp.Compare(a.item.URI, b.item.URI), cmp.Compare(as.Line, bs.Line), cmp.Compare(as.Character, bs.Character))
			})
			for _, e := range es {
				tree.Total++
				if listed == limit {
					tree.Truncated = true
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

	lines := w.Buffers.LineCache()
	var flatten func(ns []*node, depth int)
	flatten = func(ns []*node, depth int) {
		for _, n := range ns {
			h := w.node(lines, n.edge.item)
			h.Repeated, h.Depth = n.repeated, depth
			for _, r := range n.edge.sites {
				h.Sites = append(h.Sites, Site{
					File: w.displayURI(n.edge.sitesURI),
					At:   lines.Pos(n.edge.sitesURI, r.Start),
					Text: lines.Line(n.edge.sitesURI, int(r.Start.Line)),
				})
			}
			tree.Nodes = append(tree.Nodes, h)
			flatten(n.children, depth+1)
		}
	}
	flatten(top.children, 1)
	return tree, nil
}

// Node describes an item, without its neighbours.
func (w *Walker) Node(it Item) Node {
	return w.node(w.Buffers.LineCache(), it)
}

func (w *Walker) node(lines *place.Lines, it Item) Node {
	start := it.SelectionRange.Start
	return Node{
		Name: it.Name,
		Kind: render.SymbolKind(it.Kind),
		File: w.displayURI(it.URI),
		At:   lines.Pos(it.URI, start),
		Text: lines.Line(it.URI, int(start.Line)),
	}
}

// displayURI shows a file:// URI as the read gate shows its path, and
// anything else as it is.
func (w *Walker) displayURI(uri string) string {
	p, err := lspclient.URIPath(uri)
	if err != nil {
		return uri
	}
	return w.Reads.Display(p)
}

// Lines renders the nodes, one line each (or, with bySite, one line
// per call site), indented by two spaces a level below the first.
func Lines(nodes []Node, bySite bool) []string {
	lines := []string{}
	for _, n := range nodes {
		indent := strings.Repeat("  ", max(n.Depth-1, 0))
		more := ""
		if n.Repeated {
			more = " (repeated, not expanded)"
		}
		switch {
		case bySite && len(n.Sites) > 0:
			for _, s := range n.Sites {
				lines = append(lines, fmt.Sprintf("%s%s %s: %s%s", indent, n.Name, s.At.In(s.File), s.Text, more))
			}
		case n.Kind == "func" || n.Kind == "method":
			lines = append(lines, fmt.Sprintf("%s%s %s: %s%s", indent, n.Name, n.Loc(), n.Text, more))
		default:
			lines = append(lines, fmt.Sprintf("%s%s: %s%s", indent, n.Loc(), n.Text, more))
		}
	}
	return lines
}
