package buffer

import (
	"fmt"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// Kind says where a source's text comes from.
type Kind int

const (
	// FromDisk is the file as it is on disk.
	FromDisk Kind = iota
	// FromOverlay is unsaved text given for a file (file + text).
	FromOverlay
	// FromSnippet is text given alone, held under a scratch path.
	FromSnippet
	// AsContext is a file outside the root (the standard library, the
	// module cache), read for context and never opened in gopls.
	AsContext
)

// A Source is the text of one file as gopls holds it for this call. The
// call that opened it must release it (Release); until then gopls keeps
// exactly that text, so that positions in gopls's answers match it.
type Source struct {
	Path  string // absolute
	URI   string
	Text  string
	Lines []string // without line ends; shared, not to be modified
	Kind  Kind
	// editor marks an overlay that is the editor's unsaved text, shared
	// with consent: not a buffer of the caller's, so not one to name.
	editor bool
	// lease keeps gopls holding text until the call releases it; nil for
	// AsContext sources.
	lease *lspclient.Lease
}

// Release lets gopls change the buffer again. Releasing twice, or a
// source without a lease, does nothing.
func (s *Source) Release() {
	if s != nil && s.lease != nil {
		s.lease.Release()
	}
}

// OpenInGopls opens the source's file in gopls now if gopls reads it from
// disk until the call ends: gopls keeps its analyzers' diagnostics, and
// their fixes, only for open files. It reports whether gopls holds the
// source's text open in the workspace's build (see lspclient.Lease.Open).
func (s *Source) OpenInGopls() bool {
	return s != nil && s.lease != nil && s.lease.Open()
}

// Line returns line i, or "" when out of range.
func (s *Source) Line(i int) string {
	if i < 0 || i >= len(s.Lines) {
		return ""
	}
	return s.Lines[i]
}

// Pos is the LSP position p in the source as answers show it (see
// place.Pos): 1-based line, byte column.
func (s *Source) Pos(p protocol.Position) place.Pos {
	return place.FromLSP(s.Line(int(p.Line)), p)
}

// Span is the LSP range r in the source as answers show it.
func (s *Source) Span(r protocol.Range) place.Span {
	return place.Span{Start: s.Pos(r.Start), End: s.Pos(r.End)}
}

// CheckPosition reports whether line and character (0-based, UTF-16, as
// LSP counts them: only gopls mcp's tools that take an LSP location do)
// address a place in the file, with a message saying what is valid.
func (s *Source) CheckPosition(line, char int) error {
	if line < 0 || char < 0 {
		return fmt.Errorf("line and character are 0-based and must not be negative")
	}
	if line >= len(s.Lines) {
		return fmt.Errorf("line %d is past the end of the file, which has lines 0 to %d", line, len(s.Lines)-1)
	}
	if n := place.UTF16Len(s.Lines[line]); char > n {
		return fmt.Errorf("character %d is past the end of line %d, which has %d UTF-16 code units", char, line, n)
	}
	return nil
}

// End is the position just past the last character of the file.
func (s *Source) End() (line, char int) {
	last := len(s.Lines) - 1
	return last, place.UTF16Len(s.Lines[last])
}

// BufferURI is the uri to report for a buffer a later call can name:
// set for the caller's snippets and overlays, empty for files as on disk
// and for the editor's unsaved text (the answer's note names that file).
func (s *Source) BufferURI() string {
	if s == nil || s.Kind == FromDisk || s.Kind == AsContext || s.editor {
		return ""
	}
	return s.URI
}
