package bridge

import (
	"context"
	"errors"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// LocationReferencesInput is the input of go_references, gopls mcp's
// optional tool, which names the symbol by a location.
type LocationReferencesInput struct {
	Location Location `json:"location" jsonschema:"where the symbol is, as an LSP location; its range's start is used"`
}

// Location is an LSP location: a file:// URI and a range in it.
type Location struct {
	URI   string `json:"uri" jsonschema:"file:// URI of a file inside the root"`
	Range Range  `json:"range"`
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
		return nil, errors.New("location.uri is empty; pass the file:// URI of a file inside the root, and range.start at the symbol (0-based line and character)")
	}
	line, char := in.Location.Range.Start.Line, in.Location.Range.Start.Character
	return b.references(ctx, &ReferencesInput{At: At{Doc: Doc{URI: in.Location.URI}, Line: &line, Character: &char}})
}
