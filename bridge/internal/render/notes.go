package render

import (
	"fmt"
	"strings"
)

// Notes say what an answer's counts and flags mean, and what to pass to
// see more: each is one sentence, made once, that a tool's output holds
// in its notes member and its text prints (Parens), so that a model
// reading either channel reads the same words.
type Notes []string

// Add appends note to n.
func (n *Notes) Add(note string) { *n = append(*n, note) }

// Parens is the notes as a text puts them after a count: " (a; b)", or
// nothing when there are none.
func (n Notes) Parens() string {
	if len(n) == 0 {
		return ""
	}
	return " (" + strings.Join(n, "; ") + ")"
}

// The notes tools share.
const (
	// Truncated says a list is cut at the call's limit.
	Truncated = "list truncated; raise limit to see more"
	// RaiseToSee says how to see the entries counted as more ("… 5 more
	// lines", "and 2 more").
	RaiseToSee = "raise limit to see more"
)

// Listed says a list shows n of its entries, and how to see the rest.
func Listed(n int) string { return fmt.Sprintf("%d listed; %s", n, RaiseToSee) }
