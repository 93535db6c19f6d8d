package bridge

import (
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
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

// lineCache reads source lines for rendering, preferring the text gopls
// holds for open documents so that lines match the positions. It holds
// each file's lines for one call; the bridge's memo and the file cache
// keep them across calls while the file is unchanged.
type lineCache struct {
	b     *Bridge
	files map[string][]string
}

func (b *Bridge) newLineCache() *lineCache {
	return &lineCache{b: b, files: make(map[string][]string)}
}

// line returns line n of the file at uri, trimmed, or "" if unavailable.
func (c *lineCache) line(uri string, n int) string {
	lines, ok := c.files[uri]
	if !ok {
		if p, err := lspclient.URIPath(uri); err == nil {
			if text, ok := c.b.currentText(p); ok {
				lines = c.b.lines.Lines(p, text)
			}
		}
		c.files[uri] = lines
	}
	if n < 0 || n >= len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n])
}

// loc converts an LSP location into a Loc with its source line.
func (c *lineCache) loc(l protocol.Location) Loc {
	uri := string(l.URI)
	start := l.Range.Start
	return Loc{
		File:      c.b.displayURI(uri),
		Line:      int(start.Line),
		Character: int(start.Character),
		Text:      c.line(uri, int(start.Line)),
	}
}

// place renders an LSP location within its file as line:character:
// source line.
func (c *lineCache) place(l protocol.Location) string {
	start := l.Range.Start
	return render.Place(int(start.Line), int(start.Character), c.line(string(l.URI), int(start.Line)))
}
