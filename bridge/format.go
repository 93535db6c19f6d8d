package bridge

import (
	"context"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// FormatInput is the input of go_format.
type FormatInput struct {
	Doc
	Write
}

// FormatOutput is the result of go_format.
type FormatOutput struct {
	URI string `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer formatted, for later calls"`
	Changes
}

// Render implements mcp.Renderer.
func (o *FormatOutput) Render() string {
	return render.WithBuffer(o.URI, o.Text("already formatted"))
}

// formatTool is go_format's entry in the catalogue (see ToolSpec).
var formatTool = ToolSpec{
	Name:        "go_format",
	Title:       "Format Go code",
	Description: "Format a Go file with gofmt: the changes as a unified diff.",
	Narrow:      "the file needs more formatting than fits; run gofmt on it instead, or pass file with text holding part of it",
	Edits:       true,
	Instruction: "rename, gofmt, fix imports, quick fixes, refactorings (fill struct, extract, inline): a unified diff; apply: true writes it if the server allows.",
	Skill:       "Rename, gofmt, fix imports, quick fixes and refactorings (as a diff)",
	Doc:         "the edits and diff gofmt would make",
	Summary:     "gofmt's edits and diff",
	Framing:     []string{`^already formatted$`},
	Good:        Sample{Args: `{"text": "package scratch\nvar x=1\n"}`, Want: "+var x = 1"},
	Bad:         Sample{Args: `{"text": "package p\nfunc {"}`, Want: `^gopls: .*expected 'IDENT'`},
	Questions: []string{
		"format this go file with gofmt",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.format) },
}

func (b *Bridge) format(ctx context.Context, in *FormatInput) (*FormatOutput, error) {
	if err := b.edits.Check(in.Write); err != nil {
		return nil, err
	}
	src, err := b.buffers.OpenDoc(ctx, b.caller(ctx), in.Doc)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	var edits []protocol.TextEdit
	asked := b.edits.Ask()
	err = b.client.Call(ctx, "textDocument/formatting", map[string]any{
		"textDocument": map[string]any{"uri": src.URI},
		"options":      map[string]any{"tabSize": 8, "insertSpaces": false},
	}, &edits)
	if err != nil {
		return nil, ask.Error(err)
	}
	es, err := b.edits.From(ctx, &edit.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{src.URI: edits}}, asked)
	if err != nil {
		return nil, err
	}
	ch, err := b.edits.Propose(in.Write, es)
	if err != nil {
		return nil, err
	}
	return &FormatOutput{URI: src.BufferURI(), Changes: ch}, nil
}
