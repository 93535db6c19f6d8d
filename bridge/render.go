package bridge

import (
	"fmt"
)

// Loc is a place in the code as tools report it: 0-based line and UTF-16
// character, the same numbers the tools accept, and the source line.
type Loc struct {
	File      string `json:"file" jsonschema:"path relative to the workspace root, or $GOROOT/... or $GOMODCACHE/... for read-only context"`
	Line      int    `json:"line" jsonschema:"0-based line"`
	Character int    `json:"character" jsonschema:"0-based UTF-16 column"`
	Text      string `json:"text,omitempty" jsonschema:"the source line, trimmed"`
}

// String renders the location as path:line:character: text.
func (l Loc) String() string {
	if l.Text == "" {
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Character)
	}
	return fmt.Sprintf("%s:%d:%d: %s", l.File, l.Line, l.Character, l.Text)
}
