package render

import (
	"strings"

	"go.lsp.dev/protocol"
)

// FirstSentence returns the first sentence of doc, on one line: the
// first paragraph, its spaces collapsed, cut after the first ". ".
func FirstSentence(doc string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i+1]
	}
	return doc
}

// MarkupText returns the text of an LSP string-or-MarkupContent value, as
// decoded into an any; anything else has none.
func MarkupText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		s, _ := v["value"].(string)
		return s
	}
	return ""
}

// FalseFirst compares two flags so that entries without the flag sort
// before those with it, as in lists where a package's own entries or
// non-test files come first.
func FalseFirst(a, b bool) int {
	return rank(a) - rank(b)
}

func rank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// OneLine joins the lines of a message with "; ", each trimmed.
func OneLine(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "; ")
}

// Severity names an LSP diagnostic severity in one word; an unknown or
// missing one reads as an error.
func Severity(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}
