package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

const defaultTokenLimit = 500

// TokensInput is the input of go_tokens.
type TokensInput struct {
	File      string   `json:"file" jsonschema:"Go file (root-relative or absolute)"`
	StartLine *int     `json:"startLine,omitempty" jsonschema:"first 1-based line (default 1)"`
	EndLine   *int     `json:"endLine,omitempty" jsonschema:"last 1-based line, inclusive"`
	Types     []string `json:"types,omitempty" jsonschema:"only these types, e.g. [\"function\"]"`
	Limit     int      `json:"limit,omitempty" jsonschema:"default 500"`
}

// TokensOutput is the result of go_tokens.
type TokensOutput struct {
	Total  int      `json:"total,omitempty" jsonschema:"number of tokens that match, when fewer are listed"`
	Notes  Notes    `json:"notes,omitempty" jsonschema:"how many are listed of total and how to see more, as the text says it"`
	Tokens []string `json:"tokens" jsonschema:"the tokens in source order, as line:col type[modifiers] text, with gopls's legend's names; 1-based, byte columns, as go vet prints them"`

	file      string // as the text names it
	total     int
	truncated bool // fewer than total are listed
}

// Render implements mcp.Renderer.
func (o *TokensOutput) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", o.file, render.Plural(o.total, "token"))
	b.WriteString(o.Notes.Parens())
	for _, t := range o.Tokens {
		b.WriteString("\n" + t)
	}
	return b.String()
}

// tokensTool is go_tokens's entry in the catalogue (see ToolSpec).
var tokensTool = ToolSpec{
	Name:        "go_tokens",
	Title:       "Semantic tokens",
	Description: "Semantic tokens: how gopls classifies each token of a file or line range (highlighting), with modifiers.",
	Narrow:      "narrow the call: pass startLine and endLine for fewer lines, types to keep only some token types, or a smaller limit",
	Instruction: "semantic tokens of a file.",
	Skill:       "Semantic tokens of a file",
	Doc:         "semantic tokens of a `file` or a line range, each as `line:col type[modifiers] text`",
	Summary:     "semantic tokens of a file or a line range",
	Framing:     []string{`: \d+ tokens?`},
	Good:        Sample{Args: `{"file": "shapes/shapes.go", "startLine": 6, "endLine": 9}`, Want: "type[definition,interface] Shape"},
	Bad:         Sample{Args: `{"file": "main.go", "startLine": 10, "endLine": 2}`, Want: `^endLine 2 is before startLine 10`},
	Questions: []string{
		"semantic highlighting of a file",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.tokens) },
}

func (b *Bridge) tokens(ctx context.Context, in *TokensInput) (*TokensOutput, error) {
	limit, err := limitOr(in.Limit, defaultTokenLimit)
	if err != nil {
		return nil, err
	}
	types, mods := b.client.SemanticTokensLegend()
	if len(types) == 0 {
		return nil, errors.New("this gopls offers no semantic tokens")
	}
	for _, t := range in.Types {
		if !slices.Contains(types, t) {
			return nil, fmt.Errorf("unknown token type %s; gopls's types are %s", render.Quote(t), strings.Join(types, ", "))
		}
	}
	src, err := b.buffers.OpenFile(ctx, b.caller(ctx), in.File)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	last := len(src.Lines) // 1-based
	method := "textDocument/semanticTokens/full"
	params := map[string]any{"textDocument": map[string]any{"uri": src.URI}}
	if in.StartLine != nil || in.EndLine != nil {
		start, end := 1, last
		if in.StartLine != nil {
			start = *in.StartLine
		}
		if in.EndLine != nil {
			end = *in.EndLine
		}
		switch {
		case start < 1 || end < 1:
			return nil, errors.New("startLine and endLine count from 1, as go vet prints lines, and must be at least 1")
		case start > last:
			return nil, fmt.Errorf("startLine %d is past the end of the file, which has lines 1 to %d", start, last)
		case end < start:
			return nil, fmt.Errorf("endLine %d is before startLine %d", end, start)
		}
		end = min(end, last)
		method = "textDocument/semanticTokens/range"
		params["range"] = map[string]any{
			"start": map[string]any{"line": start - 1, "character": 0},
			"end":   map[string]any{"line": end - 1, "character": iplace.UTF16Len(src.Line(end - 1))},
		}
	}
	var res *struct {
		Data []uint32 `json:"data"`
	}
	if err := b.client.Call(ctx, method, params, &res); err != nil {
		return nil, ask.Error(err)
	}
	out := &TokensOutput{file: b.displayPath(src.Path), Tokens: []string{}}
	if res == nil {
		return out, nil
	}
	line, char := 0, 0
	for i := 0; i+5 <= len(res.Data); i += 5 {
		d := res.Data[i : i+5]
		if d[0] > 0 {
			line += int(d[0])
			char = 0
		}
		char += int(d[1])
		typ := fmt.Sprintf("type %d", d[3])
		if int(d[3]) < len(types) {
			typ = types[d[3]]
		}
		if len(in.Types) > 0 && !slices.Contains(in.Types, typ) {
			continue
		}
		out.total++
		if len(out.Tokens) == limit {
			out.truncated = true
			continue
		}
		var tb strings.Builder
		tb.WriteString(src.Pos(protocol.Position{Line: uint32(line), Character: uint32(char)}).String() + " " + typ)
		var modifiers []string
		for bit, name := range mods {
			if d[4]&(1<<bit) != 0 {
				modifiers = append(modifiers, name)
			}
		}
		if len(modifiers) > 0 {
			tb.WriteString("[" + strings.Join(modifiers, ",") + "]")
		}
		text := src.Line(line)
		tb.WriteString(" " + text[iplace.ByteOffset(text, char):iplace.ByteOffset(text, char+int(d[2]))])
		out.Tokens = append(out.Tokens, tb.String())
	}
	if out.truncated {
		out.Total = out.total
		out.Notes.Add(fmt.Sprintf("%d listed; raise limit or narrow the lines", len(out.Tokens)))
	}
	return out, nil
}
