package place

import (
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// Lines reads source lines for rendering, from the text a call's places
// are numbered in (the text gopls holds for open documents, so that
// lines match the positions). It holds each file's lines for one call;
// the memo and the file cache keep them across calls while the file is
// unchanged.
type Lines struct {
	text  func(path string) (string, bool)
	memo  *memo.Lines
	files map[string][]string
}

// NewLines returns the lines of the texts text gives, split through memo.
func NewLines(text func(path string) (string, bool), memo *memo.Lines) *Lines {
	return &Lines{text: text, memo: memo, files: make(map[string][]string)}
}

// Line returns line n of the file at uri, trimmed, or "" if unavailable.
func (c *Lines) Line(uri string, n int) string {
	line, _ := c.Untrimmed(uri, n)
	return strings.TrimSpace(line)
}

// Untrimmed returns line n of the file at uri as it is, and whether the
// file has it.
func (c *Lines) Untrimmed(uri string, n int) (string, bool) {
	lines, ok := c.files[uri]
	if !ok {
		if p, err := lspclient.URIPath(uri); err == nil {
			if text, ok := c.text(p); ok {
				lines = c.memo.Lines(p, text)
			}
		}
		c.files[uri] = lines
	}
	if n < 0 || n >= len(lines) {
		return "", false
	}
	return lines[n], true
}

// Pos is the LSP position p in the file at uri as answers show it (see
// FromLSP): its line's text turns the UTF-16 character into bytes.
func (c *Lines) Pos(uri string, p protocol.Position) Pos {
	line, _ := c.Untrimmed(uri, int(p.Line))
	return FromLSP(line, p)
}

// Span is the LSP range r in the file at uri as answers show it.
func (c *Lines) Span(uri string, r protocol.Range) Span {
	return Span{Start: c.Pos(uri, r.Start), End: c.Pos(uri, r.End)}
}

// Place renders an LSP location within its file as line:col: source line.
func (c *Lines) Place(l protocol.Location) string {
	start := l.Range.Start
	return c.Pos(string(l.URI), start).Text(c.Line(string(l.URI), int(start.Line)))
}
