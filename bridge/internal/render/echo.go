package render

import (
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// EchoChars bounds a client string echoed in a message (docs/safety.md, "Limits").
const EchoChars = 80

// HasControl reports whether s holds a C0 or C1 control character or DEL.
func HasControl(s string) bool {
	for _, r := range s {
		if IsControl(r) {
			return true
		}
	}
	return false
}

// IsControl reports whether r is a C0 or C1 control character or DEL.
func IsControl(r rune) bool {
	_, ok := mcp.StandIn(r)
	return ok
}

// Quote shortens a client string for echoing in a message: at most
// EchoChars characters, control characters replaced, in Go quotes.
func Quote(s string) string {
	return fmt.Sprintf("%q", Clip(s))
}

// Clip is Quote without the quotes.
func Clip(s string) string { return ClipN(s, EchoChars) }

// ClipN cuts s to at most max characters, marking the cut, with control
// characters (newline and tab too: an echo is one line) replaced by
// their stand-ins (mcp.StandIn), the one choice of how answers show them.
func ClipN(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		if sub, ok := mcp.StandIn(r); ok {
			b.WriteString(sub)
		} else {
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}
