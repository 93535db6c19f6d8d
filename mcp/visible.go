package mcp

import (
	"strings"
	"unicode/utf8"
)

// StandIn returns the visible stand-in of r if r is a C0 or C1 control
// character or DEL, and whether it is one. A terminal acts on these
// (ESC starts a sequence that can retitle the window, clear the screen
// or, with OSC 52, set the clipboard; a lone CR overwrites the line), so
// text from a file or a client is never shown with them raw. C0 becomes
// its Control Picture (U+2400 + r: ␛, ␇, ␀, ␍), DEL becomes ␡ (U+2421),
// and C1, which has no pictures, is spelled out as Go quotes it
// (\u009b). Every stand-in is valid UTF-8 and no control character.
func StandIn(r rune) (string, bool) {
	switch {
	case r < 0x20:
		return string(rune(0x2400 + r)), true
	case r == 0x7f:
		return "\u2421", true
	case r >= 0x80 && r < 0xa0:
		const hex = "0123456789abcdef"
		return `\u00` + string(hex[r>>4]) + string(hex[r&0xf]), true
	}
	return "", false
}

// Printable returns s with every control character but newline and tab
// replaced by its [StandIn], and each byte of invalid UTF-8 by U+FFFD: s
// as it may be shown in a terminal or given to a model. It returns s
// itself when there is nothing to replace.
func Printable(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r != '\n' && r != '\t' && isControl(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if r == '\n' || r == '\t' {
			b.WriteRune(r)
		} else if sub, ok := StandIn(r); ok {
			b.WriteString(sub)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool {
	_, ok := StandIn(r)
	return ok
}
