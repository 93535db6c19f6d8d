package bridge

import (
	"context"
	"github.com/goplsmcp/goplsmcp/bridge/internal/action"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// OrganizeImportsInput is the input of go_organize_imports.
type OrganizeImportsInput struct {
	Doc
	Write
}

// OrganizeImportsOutput is the result of go_organize_imports.
type OrganizeImportsOutput struct {
	URI string `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer, for later calls"`
	Changes
}

// Render implements mcp.Renderer.
func (o *OrganizeImportsOutput) Render() string {
	return render.WithBuffer(o.URI, o.Text("imports already organized"))
}

// organizeImportsTool is go_organize_imports's entry in the catalogue (see ToolSpec).
var organizeImportsTool = ToolSpec{
	Name:        "go_organize_imports",
	Title:       "Organize imports",
	Description: "Fix imports like goimports: add missing, remove unused, sort; as a unified diff.",
	Narrow:      "narrow the call: pass file with text holding only its import block and the code that uses them",
	Edits:       true,
	Instruction: "rename, gofmt, fix imports, quick fixes, refactorings (fill struct, extract, inline): a unified diff; apply: true writes it if the server allows.",
	Skill:       "Rename, gofmt, fix imports, quick fixes and refactorings (as a diff)",
	Doc:         "the import edits and diff gopls proposes (add missing, remove unused)",
	Summary:     "import edits and diff",
	Framing:     []string{`^imports already organized$`},
	Good:        Sample{Args: `{"file": "main.go"}`, Want: "imports already organized"},
	Bad:         Sample{Args: `{"uri": "file:///etc/passwd"}`, Want: `^uri "file:///etc/passwd" is outside the workspace root`},
	Questions: []string{
		"fix missing imports",
		"remove unused imports",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.organizeImports) },
}

func (b *Bridge) organizeImports(ctx context.Context, in *OrganizeImportsInput) (*OrganizeImportsOutput, error) {
	if err := b.edits.Check(in.Write); err != nil {
		return nil, err
	}
	src, err := b.buffers.OpenDoc(ctx, b.caller(ctx), in.Doc)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	const kind = "source.organizeImports"
	actions, err := b.actions.List(ctx, src, action.WholeFile(src), nil, []string{kind})
	if err != nil {
		return nil, err
	}
	out := &OrganizeImportsOutput{URI: src.BufferURI()}
	for _, a := range actions {
		if a.Kind != kind || !a.Editable() {
			continue
		}
		es, err := b.actions.Edits(ctx, a)
		if err != nil {
			return nil, err
		}
		if out.Changes, err = b.edits.Propose(in.Write, es); err != nil {
			return nil, err
		}
		break
	}
	return out, nil
}
