package render

import "strings"

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
