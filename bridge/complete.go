package bridge

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
)

const defaultCompletionLimit = 30

// CompleteInput is the input of go_complete.
type CompleteInput struct {
	At
	Limit    int  `json:"limit,omitempty" jsonschema:"default 30"`
	Detailed bool `json:"detailed,omitempty" jsonschema:"add kinds and docs"`
}

// CompleteOutput is the result of go_complete.
type CompleteOutput struct {
	Note     string   `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Total    int      `json:"total,omitempty" jsonschema:"number of candidates gopls gave, when fewer are listed"`
	Notes    Notes    `json:"notes,omitempty" jsonschema:"how many are listed of total and how to see more, as the text says it"`
	Items    []string `json:"items" jsonschema:"candidates, best first, as label (kind) type-or-signature => text to insert, adds import \"path\" when accepting it adds one; kind and docs when detailed"`
	Withheld string   `json:"withheld,omitempty" jsonschema:"candidates not shown, and why: they are declared outside the workspace root"`

	found int // what Total says, listed or not
}

// Render implements mcp.Renderer.
func (o *CompleteOutput) Render() string {
	var b strings.Builder
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	if o.found == 0 {
		if o.Withheld != "" {
			b.WriteString(o.Withheld)
		} else {
			b.WriteString("no completions here")
		}
		return b.String()
	}
	if o.Withheld != "" {
		b.WriteString(o.Withheld + "\n")
	}
	b.WriteString(render.Plural(o.found, "completion") + o.Notes.Parens())
	for _, c := range o.Items {
		b.WriteString("\n" + c)
	}
	return b.String()
}

// completeTool is go_complete's entry in the catalogue (see ToolSpec).
var completeTool = ToolSpec{
	Name:        "go_complete",
	Title:       "Complete Go code",
	Description: "Code completion at a position: candidates best first (fields and methods after \"x.\"), with types or signatures.",
	Narrow:      "narrow the call: pass a smaller limit, and leave detailed out",
	Instruction: "completions at a position.",
	Skill:       "Completions at a position",
	Doc:         "completion candidates at a position, best first, with type or signature, and the import accepting one adds",
	Summary:     "completion candidates at a position",
	Framing:     []string{`^(\d+ completions?|no completions here)`},
	Good:        Sample{Args: `{"file": "report/report.go", "line": 12, "column": 13, "limit": 3}`, Want: "Sprintf func(format string, a ...any) string"},
	Bad:         Sample{Args: `{"file": "main.go", "line": 0, "column": 1}`, Want: `must be at least 1`},
	Questions: []string{
		"autocomplete methods after a dot",
		"completion suggestions at the cursor",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.complete) },
}

// completionKinds names LSP completion item kinds in Go's words.
var completionKinds = [...]string{
	1: "text", 2: "method", 3: "func", 4: "constructor", 5: "field", 6: "var",
	7: "type", 8: "interface", 9: "package", 10: "property", 11: "unit",
	12: "value", 13: "enum", 14: "keyword", 15: "snippet", 16: "color",
	17: "file", 18: "reference", 19: "folder", 20: "enum member", 21: "const",
	22: "struct", 23: "event", 24: "operator", 25: "type parameter",
}

// completionPackage is the kind of a package name.
const completionPackage = 9

func (b *Bridge) complete(ctx context.Context, in *CompleteInput) (*CompleteOutput, error) {
	limit, err := limitOr(in.Limit, defaultCompletionLimit)
	if err != nil {
		return nil, err
	}
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	// gopls marks every list incomplete (so that editors ask again as the
	// user types), which tells a model nothing: it is not passed on.
	var list struct {
		Items []completionItem `json:"items"`
	}
	if err := b.client.Call(ctx, "textDocument/completion", t.Position(), &list); err != nil {
		return nil, ask.Error(err)
	}
	out := &CompleteOutput{Note: t.Note, found: len(list.Items), Items: []string{}}
	withheld := 0             // candidates of packages outside the gate, not yet imported
	var outsidePaths []string // the files outside they are declared in
	if len(list.Items) > 0 {
		sel, path, err := b.selectorAt(ctx, t.Src.URI, t.Src.Line(t.Line), t.Line, t.Character)
		if err != nil {
			return nil, err
		}
		switch {
		case sel == selectorOutside && path == "":
			out.found, out.Withheld = 0, "the candidates are members of a type gopls does not say where it is declared, so they are withheld; complete after a variable that holds the value"
			return out, nil
		case sel == selectorOutside:
			out.found, out.Withheld = 0, "the candidates are members of a declaration outside the workspace root, reached through "+b.via(path)+", so they are withheld"
			return out, nil
		case sel == selectorUnresolved:
			// The members of a package the file does not import yet:
			// each is shown if its package is.
			shown := map[string]bool{}
			items := list.Items[:0]
			for _, it := range list.Items {
				imp := it.imports()
				if _, done := shown[imp]; !done && imp != "" {
					var path string
					if shown[imp], path, err = b.importShown(ctx, imp); err != nil {
						return nil, err
					}
					if path != "" {
						outsidePaths = append(outsidePaths, path)
					}
				}
				if shown[imp] {
					items = append(items, it)
				}
			}
			withheld = len(list.Items) - len(items)
			list.Items = items
		}
	}
	// Deep candidates ("v.Field", "pkg.Func") are reached through a name
	// in scope, which may lead outside the root.
	var through []string
	for _, it := range list.Items {
		if first, _, ok := strings.Cut(it.Label, "."); ok {
			through = append(through, first)
		}
	}
	outsideNames, paths, err := b.namesOutside(ctx, t.Src.URI, t.Src.Lines, t.Line, through)
	if err != nil {
		return nil, err
	}
	outsidePaths = append(outsidePaths, paths...)
	items := list.Items[:0]
	for _, it := range list.Items {
		if first, _, ok := strings.Cut(it.Label, "."); !ok || !outsideNames[first] {
			items = append(items, it)
		}
	}
	if n := withheld + len(list.Items) - len(items); n > 0 {
		out.found = len(items)
		if len(outsidePaths) > 0 {
			out.Withheld = render.Plural(n, "candidate") + " withheld: declared outside the workspace root, reached through " + b.via(outsidePaths...)
		} else {
			out.Withheld = render.Plural(n, "candidate") + " withheld: reached through names gopls does not say where they are declared"
		}
	}
	for _, it := range items {
		if len(out.Items) == limit {
			out.Total = out.found
			out.Notes.Add(render.Listed(limit))
			break
		}
		item := it.Label
		if in.Detailed && it.Kind > 0 && it.Kind < len(completionKinds) {
			item += " (" + completionKinds[it.Kind] + ")"
		}
		if typ := it.typ(); typ != "" {
			item += " " + typ
		}
		insert := it.InsertText
		if it.TextEdit != nil {
			insert = it.TextEdit.NewText
		}
		if insert != it.Label {
			item += " => " + insert
		}
		if imp := it.imports(); imp != "" {
			item += ", adds import " + strconv.Quote(imp)
		}
		if doc := strings.TrimSpace(render.MarkupText(it.Documentation)); in.Detailed && doc != "" {
			item += "\n\t" + strings.ReplaceAll(doc, "\n", "\n\t")
		}
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// completionItem is the part of an LSP completion item go_complete shows.
type completionItem struct {
	Label  string `json:"label"`
	Kind   int    `json:"kind"`
	Detail string `json:"detail"`
	// LabelDetails splits Detail into the type or signature (Detail,
	// without a function's "func") and the import accepting the item
	// adds (Description); gopls sends it from v0.24, to clients that
	// declare labelDetailsSupport.
	LabelDetails *struct {
		Detail      string `json:"detail"`
		Description string `json:"description"`
	} `json:"labelDetails"`
	Documentation any    `json:"documentation"`
	InsertText    string `json:"insertText"`
	TextEdit      *struct {
		NewText string `json:"newText"`
	} `json:"textEdit"`
}

// fromImport is what gopls appends to the detail of an item whose
// acceptance adds an import: ` (from "path")`, or `(from path)` for a
// package of the module cache. Before v0.24 it is all gopls says of it.
var fromImport = regexp.MustCompile(`\s*\(from "?([^"()]+)"?\)$`)

// imports is the import path accepting the item adds, or "".
func (it *completionItem) imports() string {
	if it.LabelDetails != nil && it.LabelDetails.Description != "" {
		return it.LabelDetails.Description
	}
	if m := fromImport.FindStringSubmatch(it.Detail); m != nil {
		return m[1]
	}
	return ""
}

// typ is the item's type or signature. For a member of a package not
// imported yet, gopls's detail is only its kind and where it is from
// ("func (from \"strings\")"), and the signature is in labelDetails.
func (it *completionItem) typ() string {
	if it.imports() == "" {
		return it.Detail
	}
	if it.Kind == completionPackage {
		// Its detail is the quoted path the import names already.
		return ""
	}
	typ := fromImport.ReplaceAllString(it.Detail, "")
	if it.LabelDetails == nil || it.LabelDetails.Detail == "" {
		return typ
	}
	switch typ {
	case "func":
		return "func" + it.LabelDetails.Detail
	case "var", "const", "type":
		return strings.TrimSpace(it.LabelDetails.Detail)
	}
	return typ
}
