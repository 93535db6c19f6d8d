package bridge

import (
	"context"
	"errors"

	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// LocationReferencesInput is the input of go_references, gopls mcp's
// optional tool, which names the symbol by a location.
type LocationReferencesInput struct {
	Location Location `json:"location" jsonschema:"where the symbol is, as an LSP location; its range's start is used"`
}

// Location is an LSP location: a file:// URI and a range in it, as LSP
// counts them (gopls mcp's parameter), unlike every other position
// goplsmcp takes.
type Location struct {
	URI   string   `json:"uri" jsonschema:"file:// URI of a file inside the root"`
	Range LSPRange `json:"range"`
}

// LSPPosition is a position as LSP counts it: 0-based line and 0-based
// UTF-16 character.
type LSPPosition struct {
	Line      int `json:"line" jsonschema:"0-based line (LSP)"`
	Character int `json:"character" jsonschema:"0-based UTF-16 column (LSP)"`
}

// LSPRange is the text between two LSP positions.
type LSPRange struct {
	Start LSPPosition `json:"start"`
	End   LSPPosition `json:"end"`
}

// locationReferencesTool is go_references's entry in the catalogue (see ToolSpec).
var locationReferencesTool = ToolSpec{
	Name:        "go_references",
	Title:       "References at a location",
	Description: "Find usages of the symbol at an LSP location (uri and range), grouped by file with source lines, the declaration included (gopls mcp's go_references; go_symbol_references takes a file and symbol).",
	Narrow:      "narrow the call: use go_symbol_references with a smaller limit",
	Optional:    true,
	Instruction: "gopls mcp's optional tools, under its names and parameters.",
	Doc:         "the references to the symbol at an LSP `location` (`uri` and `range`), as `go_symbol_references` answers them",
	Framing:     []string{`^\d+ references? to \S+ in \d+ files?, the declaration at \S+ included`},
	Good:        Sample{Args: `{"location": {"uri": "file://$ROOT/shapes/shapes.go", "range": {"start": {"line": 36, "character": 5}, "end": {"line": 36, "character": 14}}}}`, Want: "2 references to TotalArea in 2 files"},
	Bad:         Sample{Args: `{"location": {"uri": "file:///etc/passwd", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}}`, Want: `^uri "file:///etc/passwd" is outside the workspace root`},
	add:         func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.locationReferences) },
}

func (b *Bridge) locationReferences(ctx context.Context, in *LocationReferencesInput) (*ReferencesOutput, error) {
	if in.Location.URI == "" {
		return nil, errors.New("location.uri is empty; pass the file:// URI of a file inside the root, and range.start at the symbol (an LSP position: 0-based line and UTF-16 character)")
	}
	start := in.Location.Range.Start
	if start.Line < 0 || start.Character < 0 {
		return nil, errors.New("location.range.start must not be negative; LSP lines and characters count from 0")
	}
	return b.references(ctx, &ReferencesInput{At: At{Doc: Doc{URI: in.Location.URI}, LSP: &protocol.Position{Line: uint32(start.Line), Character: uint32(start.Character)}}})
}
