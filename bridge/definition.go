package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// DefinitionInput is the input of go_definition.
type DefinitionInput struct {
	At
	Kind string `json:"kind,omitempty" jsonschema:"\"type\": the declaration of the target's type"`
}

// DefinitionOutput is the result of go_definition.
type DefinitionOutput struct {
	URI  string   `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer the call named, for later calls"`
	Note string   `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	At   []string `json:"at" jsonschema:"where the target is declared, as path:line:col: source line (1-based, byte column, as go vet prints it)"`
	// Withheld says why a declaration's source line is left out.
	Withheld string `json:"withheld,omitempty" jsonschema:"why a declaration's source line is left out: it lies outside the workspace root, and what leads there"`
}

// Render implements mcp.Renderer.
func (o *DefinitionOutput) Render() string {
	var b strings.Builder
	if o.URI != "" {
		b.WriteString("buffer " + o.URI + "\n")
	}
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	if len(o.At) == 0 {
		b.WriteString("no definition found")
	}
	for _, d := range o.At {
		b.WriteString(d + "\n")
	}
	if o.Withheld != "" {
		b.WriteString(o.Withheld + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// definitionTool is go_definition's entry in the catalogue (see ToolSpec).
var definitionTool = ToolSpec{
	Name:        "go_definition",
	Title:       "Go to definition",
	Description: "Go to definition: where a symbol, or the identifier at a position, is defined (jump to declaration). kind \"type\": of its type.",
	Narrow:      "narrow the call: ask about a single identifier",
	Instruction: "go to definition of a symbol or the identifier at a position.",
	Skill:       "Go to the definition of this identifier, or of its type (`kind: \"type\"`)",
	Doc:         "where the target is declared (`kind: \"type\"`: where its type is declared)",
	Summary:     "where the target (or its type) is declared",
	Good:        Sample{Args: `{"file": "report/report.go", "symbol": "shapes.TotalArea"}`, Want: "shapes/shapes.go:37:6: func TotalArea("},
	Bad:         Sample{Args: `{"file": "main.go", "symbol": "report.Nope"}`, Want: `^symbol "report\.Nope" is not declared `},
	Questions: []string{
		"where is this function defined",
		"jump to declaration of a variable",
		"go to the definition of the type of this field",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.definition) },
}

func (b *Bridge) definition(ctx context.Context, in *DefinitionInput) (*DefinitionOutput, error) {
	method := "textDocument/definition"
	switch in.Kind {
	case "":
	case "type":
		method = "textDocument/typeDefinition"
	default:
		return nil, errors.New(`kind must be "type" or left out`)
	}
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	var locs []protocol.Location
	if err := b.client.Call(ctx, method, t.Position(), &locs); err != nil {
		return nil, ask.Error(err)
	}
	if hint := b.mods.HintAt(t.Src, t.Line, t.Character); hint != "" {
		if len(locs) == 0 {
			return nil, fmt.Errorf("no definition found at %s, since gopls cannot load the package: %s", t.Pos().In(b.displayPath(t.Src.Path)), hint)
		}
		// The import is found, and nothing beyond it.
		t.Note = strings.TrimSpace(t.Note + "\ngopls cannot load the package: " + hint)
	}
	lines := b.buffers.LineCache()
	out := &DefinitionOutput{URI: t.Buffer, Note: t.Note, At: []string{}}
	var uris []string
	for _, l := range locs {
		start := l.Range.Start
		at := Loc{File: b.displayURI(string(l.URI)), Pos: lines.Pos(string(l.URI), start), Text: lines.Line(string(l.URI), int(start.Line))}
		out.At = append(out.At, at.String())
		uris = append(uris, string(l.URI))
	}
	files, n := b.notShown(uriPaths(uris...)...)
	out.Withheld = b.withheldText(n, "declaration", files)
	return out, nil
}
