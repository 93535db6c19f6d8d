package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/decl"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

const defaultSymbolsLimit = 300

// SymbolsInput is the input of go_symbols.
type SymbolsInput struct {
	File     string `json:"file" jsonschema:"Go file (root-relative or absolute)"`
	Limit    int    `json:"limit,omitempty" jsonschema:"default 300, members included"`
	Detailed bool   `json:"detailed,omitempty" jsonschema:"add full ranges"`
}

// SymbolsOutput is the result of go_symbols.
type SymbolsOutput struct {
	Total   int      `json:"total,omitempty" jsonschema:"number of symbols in the file, members included, when fewer are listed"`
	Notes   Notes    `json:"notes,omitempty" jsonschema:"that the list is cut at limit, as the text says it"`
	Symbols []string `json:"symbols" jsonschema:"declarations in source order as line:col declaration (1-based, byte column, as go vet prints it), each type's fields and methods after it, indented by two spaces"`

	file  string // the file outlined, as the text names it
	total int
}

// Render implements mcp.Renderer.
func (o *SymbolsOutput) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", o.file, render.Plural(o.total, "symbol"))
	b.WriteString(o.Notes.Parens())
	for _, s := range o.Symbols {
		b.WriteString("\n" + s)
	}
	return b.String()
}

// outlineSymbol is a declaration or one of its members.
type outlineSymbol struct {
	name   string // methods as (Type).Method or (*Type).Method
	kind   string
	detail string // signature or type, as gopls gives it
	// tparams are the type parameters of a generic function, method or
	// type ("[T any]"), which gopls's detail leaves out.
	tparams string
}

// decl renders the symbol the way Go declares it, on one line.
func (s outlineSymbol) decl() string {
	switch s.kind {
	case "func", "method":
		if sig, ok := strings.CutPrefix(s.detail, "func"); ok {
			if strings.HasPrefix(s.name, "(") || s.kind == "func" {
				return "func " + s.name + s.tparams + sig
			}
			return s.name + sig // an interface method
		}
	case "type", "struct", "interface":
		return strings.TrimSpace("type " + s.name + s.tparams + " " + s.detail)
	case "var", "const":
		return strings.TrimSpace(s.kind + " " + s.name + " " + s.detail)
	case "field":
		// An embedded field is named by its type: show the type alone.
		base := strings.TrimLeft(s.detail, "*")
		if i := strings.LastIndex(base, "."); i >= 0 {
			base = base[i+1:]
		}
		if base == s.name {
			return s.detail
		}
	}
	return strings.TrimSpace(s.name + " " + s.detail)
}

// symbolsTool is go_symbols's entry in the catalogue (see ToolSpec).
var symbolsTool = ToolSpec{
	Name:        "go_symbols",
	Title:       "Outline a Go file",
	Description: "Outline of a Go file (document symbols): its functions, types with fields and methods, and other declarations, in order.",
	Narrow:      "narrow the call: pass a smaller limit, and leave detailed out",
	Instruction: "outline of a file.",
	Skill:       "Outline of a file",
	Doc:         "outline of one `file`: declarations with their fields and methods, at line:column (`detailed`: ranges)",
	Summary:     "the outline of one file",
	Framing:     []string{`: \d+ symbols?`},
	Good:        Sample{Args: `{"file": "shapes/shapes.go", "detailed": true}`, Want: "type Shape interface{...} [7:6-12:2]"},
	Bad:         Sample{Args: `{"file": "missing.go"}`, Want: `^file "missing\.go" does not exist; `},
	Questions: []string{
		"list the functions and types in a file",
		"outline of a go file",
		"what is declared in this file",
		"list every struct in a file with its fields and methods",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.symbols) },
}

// documentSymbol is the part of an LSP DocumentSymbol the outline uses.
type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail"`
	Kind           int              `json:"kind"`
	Range          protocol.Range   `json:"range"`
	SelectionRange protocol.Range   `json:"selectionRange"`
	Children       []documentSymbol `json:"children"`
}

func (b *Bridge) symbols(ctx context.Context, in *SymbolsInput) (*SymbolsOutput, error) {
	limit, err := limitOr(in.Limit, defaultSymbolsLimit)
	if err != nil {
		return nil, err
	}
	src, err := b.buffers.OpenFile(ctx, b.caller(ctx), in.File)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	var syms []documentSymbol
	params := map[string]any{"textDocument": map[string]any{"uri": src.URI}}
	if err := b.client.Call(ctx, "textDocument/documentSymbol", params, &syms); err != nil {
		return nil, ask.Error(err)
	}
	out := &SymbolsOutput{file: b.displayPath(src.Path), Symbols: []string{}}
	// gopls renders a declaration's detail without its type parameters:
	// they are read from the file's text, as gopls holds it.
	parsed := decl.NewFiles(decl.Options{Text: b.buffers.CurrentText, Lines: &b.lines}).Get(src.Path)
	tparams := func(d documentSymbol) string {
		if parsed == nil {
			return ""
		}
		at := d.SelectionRange.Start
		return parsed.TypeParams(parsed.Pos(int(at.Line), int(at.Character)))
	}
	// walk lists ds (members indented, nested ones named Field.Sub),
	// counting every symbol and listing the first limit.
	var walk func(ds []documentSymbol, indent, prefix string)
	walk = func(ds []documentSymbol, indent, prefix string) {
		for _, d := range ds {
			out.total++
			if len(out.Symbols) < limit {
				sel := d.SelectionRange.Start
				sym := outlineSymbol{name: prefix + d.Name, kind: render.SymbolKind(d.Kind), detail: d.Detail}
				if indent == "" {
					sym.tparams = tparams(d)
				}
				entry := indent + src.Pos(sel).String() + " " + sym.decl()
				if in.Detailed {
					entry += " [" + src.Span(d.Range).String() + "]"
				}
				out.Symbols = append(out.Symbols, entry)
			}
			if indent == "" {
				walk(d.Children, "  ", "")
			} else {
				walk(d.Children, indent, prefix+d.Name+".")
			}
		}
	}
	walk(syms, "", "")
	if len(out.Symbols) < out.total {
		out.Total, out.Notes = out.total, Notes{render.Truncated}
	}
	return out, nil
}
