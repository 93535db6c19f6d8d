package bridge

import (
	"context"
	"fmt"
	"strings"

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
	File      string          `json:"file"`
	Total     int             `json:"total" jsonschema:"number of symbols in the file, members included"`
	Truncated bool            `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Symbols   []OutlineSymbol `json:"symbols" jsonschema:"top-level declarations in source order, with their members"`
}

// OutlineSymbol is one declaration of the outline.
type OutlineSymbol struct {
	OutlineMember
	Members []OutlineMember `json:"members,omitempty" jsonschema:"fields and methods of a type; those of a nested struct follow their field, named Field.Sub"`
}

// OutlineMember is a declaration or one of its members.
type OutlineMember struct {
	Name      string `json:"name" jsonschema:"the name; methods as (Type).Method or (*Type).Method"`
	Kind      string `json:"kind" jsonschema:"func, method, type, struct, interface, field, var, const, ..."`
	Detail    string `json:"detail,omitempty" jsonschema:"signature or type, as gopls gives it"`
	Line      int    `json:"line" jsonschema:"0-based line of the name"`
	Character int    `json:"character" jsonschema:"0-based UTF-16 column of the name"`
	// The range of the whole declaration, in detailed mode.
	StartLine      *int `json:"startLine,omitempty" jsonschema:"first line of the declaration (detailed only)"`
	StartCharacter *int `json:"startCharacter,omitempty"`
	EndLine        *int `json:"endLine,omitempty" jsonschema:"last line of the declaration (detailed only)"`
	EndCharacter   *int `json:"endCharacter,omitempty"`
}

// Render implements mcp.Renderer.
func (o *SymbolsOutput) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", o.File, plural(o.Total, "symbol"))
	if o.Truncated {
		b.WriteString(" (list truncated; raise limit to see more)")
	}
	b.WriteString("\n")
	line := func(s OutlineMember, indent string) {
		fmt.Fprintf(&b, "%s%d:%d %s", indent, s.Line, s.Character, s.decl())
		if s.EndLine != nil {
			fmt.Fprintf(&b, " [%d:%d-%d:%d]", *s.StartLine, *s.StartCharacter, *s.EndLine, *s.EndCharacter)
		}
		b.WriteString("\n")
	}
	for _, s := range o.Symbols {
		line(s.OutlineMember, "")
		for _, m := range s.Members {
			line(m, "  ")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// decl renders the symbol the way Go declares it, on one line.
func (s OutlineMember) decl() string {
	switch s.Kind {
	case "func", "method":
		if sig, ok := strings.CutPrefix(s.Detail, "func"); ok {
			if strings.HasPrefix(s.Name, "(") || s.Kind == "func" {
				return "func " + s.Name + sig
			}
			return s.Name + sig // an interface method
		}
	case "type", "struct", "interface":
		return strings.TrimSpace("type " + s.Name + " " + s.Detail)
	case "var", "const":
		return strings.TrimSpace(s.Kind + " " + s.Name + " " + s.Detail)
	case "field":
		// An embedded field is named by its type: show the type alone.
		base := strings.TrimLeft(s.Detail, "*")
		if i := strings.LastIndex(base, "."); i >= 0 {
			base = base[i+1:]
		}
		if base == s.Name {
			return s.Detail
		}
	}
	return strings.TrimSpace(s.Name + " " + s.Detail)
}

func (b *Bridge) addSymbols(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_symbols",
		Title:       "Outline a Go file",
		Description: "Outline of one file in source order: declarations at line:character, with types' fields and methods nested.",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass a smaller limit, and leave detailed out",
	}, b.symbols)
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
	src, err := b.openFile(ctx, in.File)
	if err != nil {
		return nil, err
	}
	defer src.release()
	var syms []documentSymbol
	params := map[string]any{"textDocument": map[string]any{"uri": src.uri}}
	if err := b.client.Call(ctx, "textDocument/documentSymbol", params, &syms); err != nil {
		return nil, goplsError(err)
	}
	out := &SymbolsOutput{File: b.displayPath(src.path), Symbols: []OutlineSymbol{}}
	listed := 0
	// member converts d, counting it, or returns false once the limit is
	// reached.
	member := func(d documentSymbol, prefix string) (OutlineMember, bool) {
		out.Total++
		if listed == limit {
			out.Truncated = true
			return OutlineMember{}, false
		}
		listed++
		sel := d.SelectionRange.Start
		m := OutlineMember{
			Name:      prefix + d.Name,
			Kind:      symbolKind(d.Kind),
			Detail:    d.Detail,
			Line:      int(sel.Line),
			Character: int(sel.Character),
		}
		if in.Detailed {
			r := d.Range
			m.StartLine, m.StartCharacter = intPtr(int(r.Start.Line)), intPtr(int(r.Start.Character))
			m.EndLine, m.EndCharacter = intPtr(int(r.End.Line)), intPtr(int(r.End.Character))
		}
		return m, true
	}
	var members func(sym *OutlineSymbol, ds []documentSymbol, prefix string)
	members = func(sym *OutlineSymbol, ds []documentSymbol, prefix string) {
		for _, d := range ds {
			if m, ok := member(d, prefix); ok && sym != nil {
				sym.Members = append(sym.Members, m)
			} else {
				sym = nil // counted from here on, not listed
			}
			members(sym, d.Children, prefix+d.Name+".")
		}
	}
	for _, d := range syms {
		m, ok := member(d, "")
		if !ok {
			members(nil, d.Children, "")
			continue
		}
		sym := OutlineSymbol{OutlineMember: m}
		members(&sym, d.Children, "")
		out.Symbols = append(out.Symbols, sym)
	}
	return out, nil
}

func intPtr(n int) *int { return &n }
