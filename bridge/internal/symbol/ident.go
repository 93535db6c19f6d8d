package symbol

import "github.com/goplsmcp/goplsmcp/bridge/internal/place"

// IdentAt returns the identifier that covers UTF-16 column char of line:
// the run of letters, digits, underscores and non-ASCII bytes around it,
// empty when there is none.
func IdentAt(line string, char int) string {
	off := place.ByteOffset(line, char)
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	start, end := off, off
	for start > 0 && isWord(line[start-1]) {
		start--
	}
	for end < len(line) && isWord(line[end]) {
		end++
	}
	return line[start:end]
}
