package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// RenameInput is the input of go_rename_symbol. Its file, symbol and
// new_name are those of gopls mcp's tool of the same name.
type RenameInput struct {
	At
	NewName string `json:"new_name" jsonschema:"a Go identifier"`
	Write
}

// RenameOutput is the result of go_rename_symbol.
type RenameOutput struct {
	URI  string `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer the call named, for later calls"`
	Note string `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Changes
}

// Render implements mcp.Renderer.
func (o *RenameOutput) Render() string {
	var parts []string
	if o.URI != "" {
		parts = append(parts, "buffer "+o.URI)
	}
	if o.Note != "" {
		parts = append(parts, o.Note)
	}
	parts = append(parts, o.Text("nothing to change"))
	return strings.Join(parts, "\n")
}

// renameTool is go_rename_symbol's entry in the catalogue (see ToolSpec).
var renameTool = ToolSpec{
	Name:        "go_rename_symbol",
	Title:       "Rename a symbol",
	Description: "Rename a symbol everywhere, across packages (a safe refactor, not search and replace): edits as a unified diff.",
	Narrow:      "the rename touches too much to show at once; see where the symbol is used with go_symbol_references, and rename a symbol with fewer uses",
	Edits:       true,
	Instruction: "rename, gofmt, fix imports, quick fixes, refactorings (fill struct, extract, inline): a unified diff; apply: true writes it if the server allows.",
	Skill:       "Rename, gofmt, fix imports, quick fixes and refactorings (as a diff)",
	Doc:         "the edits and unified diff that rename a symbol everywhere (`new_name`)",
	Summary:     "the edits and unified diff that rename a symbol everywhere",
	Good:        Sample{Args: `{"file": "shapes/shapes.go", "symbol": "TotalArea", "new_name": "SumAreas"}`, Want: "+func SumAreas("},
	Bad:         Sample{Args: `{"file": "shapes/shapes.go", "symbol": "TotalArea", "new_name": "1bad"}`, Want: `^new_name "1bad" is not a Go identifier`},
	Questions: []string{
		"rename a function everywhere",
		"safely rename a variable across the project",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.rename) },
}

func (b *Bridge) rename(ctx context.Context, in *RenameInput) (*RenameOutput, error) {
	// A rename must reach packages that just appeared on disk too.
	ctx = lspclient.WorkspaceWide(ctx)
	if err := b.edits.Check(in.Write); err != nil {
		return nil, err
	}
	if !symbol.IsIdent(in.NewName) {
		return nil, fmt.Errorf("new_name %s is not a Go identifier; pass the bare new name, such as NewName", render.Quote(in.NewName))
	}
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	if t.Src.Kind == buffer.AsContext {
		return nil, fmt.Errorf("%s is declared outside the workspace root, in %s; only code inside the root can be renamed", render.Quote(symbol.IdentAt(t.Src.Line(t.Line), t.Character)), b.displayPath(t.Src.Path))
	}
	var prep *struct {
		Range       protocol.Range `json:"range"`
		Placeholder string         `json:"placeholder"`
	}
	if err := b.client.Call(ctx, "textDocument/prepareRename", t.Position(), &prep); err != nil {
		return nil, ask.Error(err)
	}
	if prep == nil {
		return nil, fmt.Errorf("there is nothing to rename at %s; point at an identifier, or pass symbol", t.Pos().In(b.displayPath(t.Src.Path)))
	}
	old := prep.Placeholder
	if old == "" {
		old = symbol.IdentAt(t.Src.Line(t.Line), t.Character)
	}
	if old == in.NewName {
		return nil, errors.New("new_name is the current name; pass a different one")
	}
	params := t.Position()
	params["newName"] = in.NewName
	var we edit.WorkspaceEdit
	asked := b.edits.Ask()
	if err := b.client.Call(ctx, "textDocument/rename", params, &we); err != nil {
		return nil, ask.Error(err)
	}
	if b.afterCompute != nil {
		b.afterCompute()
	}
	es, err := b.edits.From(ctx, &we, asked)
	if err != nil {
		return nil, err
	}
	ch, err := b.edits.Propose(in.Write, es)
	if err != nil {
		return nil, err
	}
	return &RenameOutput{URI: t.Buffer, Note: t.Note, Changes: ch}, nil
}
