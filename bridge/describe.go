package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// DescribeInput is the input of go_describe.
type DescribeInput struct {
	At
	Detailed bool `json:"detailed,omitempty" jsonschema:"full docs"`
}

// DescribeOutput is the result of go_describe.
type DescribeOutput struct {
	URI      string `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer the call named, for later calls"`
	Note     string `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Decl     string `json:"decl,omitempty" jsonschema:"the declaration: type, signature or value"`
	Doc      string `json:"doc,omitempty" jsonschema:"documentation: its first sentence, or all of it when detailed"`
	Nothing  string `json:"nothing,omitempty" jsonschema:"when there is nothing to describe: the position asked about, as path:line:col: source line (1-based, byte column, as go vet prints it)"`
	Withheld string `json:"withheld,omitempty" jsonschema:"why the declaration's text is not shown: it lies outside the workspace root"`
}

// Render implements mcp.Renderer.
func (o *DescribeOutput) Render() string {
	var parts []string
	if o.URI != "" {
		parts = append(parts, "buffer "+o.URI)
	}
	if o.Note != "" {
		parts = append(parts, o.Note)
	}
	if o.Nothing != "" {
		parts = append(parts, "nothing to describe at "+o.Nothing)
	}
	if o.Withheld != "" {
		parts = append(parts, o.Withheld)
	}
	if o.Decl != "" {
		parts = append(parts, o.Decl)
	}
	if o.Doc != "" {
		parts = append(parts, o.Doc)
	}
	return strings.Join(parts, "\n")
}

// describeTool is go_describe's entry in the catalogue (see ToolSpec).
var describeTool = ToolSpec{
	Name:        "go_describe",
	Title:       "Describe a Go identifier",
	Description: "Hover: type, signature, documentation of a symbol or identifier at a position; struct fields; detailed: a type's method set, members, promoted too. What type is a variable?",
	Narrow:      "narrow the call: leave detailed out",
	Instruction: "type, signature and doc of an identifier (hover).",
	Skill:       "What type is this, what is its signature and doc? (hover)",
	Doc:         "type, signature and documentation of the identifier at a position or of a `symbol`; a struct with its fields, and with `detailed` a type's members: its methods, and the fields and methods it promotes from embedded types",
	Summary:     "type, signature and documentation at a position or of a `symbol`",
	Good:        Sample{Args: `{"file": "shapes/shapes.go", "symbol": "Rect.Area", "detailed": true}`, Want: "func (r Rect) Area() float64"},
	Bad:         Sample{Args: `{"file": "main.go", "line": 999, "column": 1}`, Want: `^line 999 is past the end of the file`},
	Questions: []string{
		"what type is this variable",
		"show the documentation of a function",
		"hover info for an identifier",
		"what methods and fields does this struct have",
		"list the fields of this struct type",
		"show the method set of a type",
		"which methods are defined on this type",
		"which methods does this type have",
		"show me the members of this interface",
		"list fields of a struct",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.describe) },
}

func (b *Bridge) describe(ctx context.Context, in *DescribeInput) (*DescribeOutput, error) {
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	var hover *protocol.Hover
	if err := b.client.Call(ctx, "textDocument/hover", t.Position(), &hover); err != nil {
		return nil, ask.Error(err)
	}
	out := &DescribeOutput{URI: t.Buffer, Note: t.Note}
	if hover != nil && hover.Contents.Value != "" {
		outside, err := b.declaredOutside(ctx, t.Position(), false)
		if err != nil {
			return nil, err
		}
		if outside != "" {
			out.Withheld = b.withheldNote(outside)
			return out, nil
		}
	}
	if hover != nil {
		out.Decl, out.Doc = splitHover(hover.Contents.Value)
		if !in.Detailed {
			out.Doc = render.FirstSentence(out.Doc)
		}
	}
	if out.Decl == "" && out.Doc == "" {
		if hint := b.mods.HintAt(t.Src, t.Line, t.Character); hint != "" {
			return nil, fmt.Errorf("nothing to describe at %s, since gopls cannot load the package: %s", t.Pos().In(b.displayPath(t.Src.Path)), hint)
		}
		out.Nothing = Loc{File: b.displayPath(t.Src.Path), Pos: t.Pos(),
			Text: strings.TrimSpace(t.Src.Line(t.Line))}.String()
	}
	return out, nil
}

// splitHover separates gopls's markdown hover into the declaration (the
// first Go code block) and the documentation that follows it.
func splitHover(md string) (sig, doc string) {
	rest := md
	if i := strings.Index(rest, "```go\n"); i >= 0 {
		body := rest[i+len("```go\n"):]
		if j := strings.Index(body, "\n```"); j >= 0 {
			sig = strings.TrimSpace(body[:j])
			rest = rest[:i] + body[j+len("\n```"):]
		}
	}
	var paras []string
	for _, p := range strings.Split(rest, "\n---\n") {
		if p = strings.TrimSpace(p); p != "" && p != "---" {
			paras = append(paras, p)
		}
	}
	return sig, strings.Join(paras, "\n\n")
}
