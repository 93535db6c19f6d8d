package lspclient

import "slices"

//go:generate go test -run ^TestGoplsLegendGenerated$ -update

// The semantic token legend this client declares. gopls sends only the
// token types and modifiers a client declares and drops the rest, so the
// legend holds every one gopls can send (goplsTokenTypes and
// goplsTokenModifiers, generated from the pinned gopls's own legend, so
// that a type or modifier a new gopls adds is not lost) besides the LSP
// standard ones, which other versions of gopls may send.
var (
	semanticTokenTypes     = union(lspTokenTypes, goplsTokenTypes)
	semanticTokenModifiers = union(lspTokenModifiers, goplsTokenModifiers)
)

// The standard token types and modifiers of LSP 3.18.
var (
	lspTokenTypes = []string{
		"namespace", "type", "class", "enum", "interface", "struct", "typeParameter",
		"parameter", "variable", "property", "enumMember", "event", "function",
		"method", "macro", "keyword", "modifier", "comment", "string", "number",
		"regexp", "operator", "decorator", "label",
	}
	lspTokenModifiers = []string{
		"declaration", "definition", "readonly", "static", "deprecated", "abstract",
		"async", "modification", "documentation", "defaultLibrary",
	}
)

// union returns the names of a followed by those of b that a lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, name := range b {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
