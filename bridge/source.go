package bridge

import (
	"context"
	"errors"
	"fmt"

	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// maxFileBytes bounds a file the bridge reads to show or send.
const maxFileBytes = iplace.MaxFileBytes

// bufferKind says where a source's text comes from.
type bufferKind int

const (
	// FromDisk is the file as it is on disk.
	FromDisk bufferKind = iota
	// FromOverlay is unsaved text given for a file (file + text).
	FromOverlay
	// FromSnippet is text given alone, held under a scratch path.
	FromSnippet
	// AsContext is a file outside the root (the standard library, the
	// module cache), read for context and never opened in gopls.
	AsContext
)

// A source is the text of one file as gopls holds it for this call.
type source struct {
	Path  string // absolute
	URI   string
	Text  string
	Lines []string // without line ends
	Kind  bufferKind
	// lease keeps gopls holding text until the call releases it; nil for
	// asContext sources.
	lease *lspclient.Lease
}

func (b *Bridge) newSource(path, text string, kind bufferKind) *source {
	return &source{Path: path, URI: lspclient.FileURI(path), Text: text, Lines: b.lines.Lines(path, text), Kind: kind}
}

// Release lets gopls change the buffer again. Releasing twice, or a
// source without a lease, does nothing.
func (s *source) Release() {
	if s != nil && s.lease != nil {
		s.lease.Release()
	}
}

// open reads a file inside the root from disk and makes gopls hold exactly
// that text, so that positions in the answer match what the caller sees.
// The file replaces an overlay gopls may hold for it: naming a file means
// the file as it is now. The caller must release the source.
func (b *Bridge) open(ctx context.Context, path string) (*source, error) {
	text, err := b.readFile(path)
	if err != nil {
		return nil, err
	}
	return b.hold(ctx, path, text, FromDisk)
}

// readFile returns the text of the file at path as it is on disk now,
// read again only if it changed since it was last read (see
// lspclient.Client.ReadFile).
func (b *Bridge) readFile(path string) (string, error) {
	return b.client.ReadFile(path, b.reads.ReadFile)
}

// currentText returns the text of a file as gopls holds it: an open
// buffer's, else the file on disk's.
func (b *Bridge) currentText(path string) (string, bool) {
	if text, _, ok := b.client.Document(lspclient.FileURI(path)); ok {
		return text, true
	}
	text, err := b.readFile(path)
	return text, err == nil
}

// openOverlay makes gopls hold text as the content of the file at path,
// without writing it, until the file is named again without text or
// closed with go_close. The caller must release the source.
func (b *Bridge) openOverlay(ctx context.Context, path, text string) (*source, error) {
	if err := b.reads.CheckModText(path, text); err != nil {
		return nil, err
	}
	return b.hold(ctx, path, text, FromOverlay)
}

func (b *Bridge) hold(ctx context.Context, path, text string, kind bufferKind) (*source, error) {
	src := b.newSource(path, text, kind)
	st, gated := b.state(ctx)
	if gated && kind == FromOverlay && !b.gate.Owns(st) {
		// The gate admits a call that gives unsaved text only while
		// gopls is its session's alone (see makesOverlay); this one
		// slipped past it, which is the server's fault.
		return nil, mcp.InternalError(errors.New("bridge: unsaved text given outside its session's turn at the gate"))
	}
	l, err := b.client.Hold(ctx, src.URI, text, kind != FromDisk)
	if err != nil {
		return nil, goplsError(err)
	}
	src.lease = l
	if gated {
		switch kind {
		case FromOverlay:
			b.gate.Overlaid(st, src.URI, text)
		case FromDisk:
			// Naming a file means the file as it is now: the session's
			// overlay of it, if any, is gone.
			b.gate.Reverted(st, src.URI)
		}
	}
	return src, nil
}

// openCurrent is for files a call reaches on its own, such as the file
// declaring a symbol: the buffer gopls holds if it is open (an overlay
// stays an overlay), else the file from disk, or, outside the root (as
// written or through a symbolic link), the file read as context, which no
// tool edits. The caller must release the source.
func (b *Bridge) openCurrent(ctx context.Context, path string) (*source, error) {
	if !b.reads.Confined(path) {
		text, err := b.readFile(path)
		if errors.Is(err, iplace.ErrOutside) {
			return nil, fmt.Errorf("%s leads outside the workspace root, the Go installation and the module cache, so its text is not shown; read it yourself if you trust it", b.displayPath(path))
		}
		if err != nil {
			return nil, err
		}
		return b.newSource(path, text, AsContext), nil
	}
	uri := lspclient.FileURI(path)
	st, _ := b.state(ctx)
	if iplace.Within(b.scratchRoot(), path) && !st.Snippets.Has(uri) {
		return nil, errNotOpen
	}
	if l, ok := b.client.HoldOpen(uri); ok {
		kind := FromDisk
		switch {
		case st.Snippets.Has(uri):
			kind = FromSnippet
		case b.client.IsOverlay(uri):
			kind = FromOverlay
		}
		src := b.newSource(path, l.Text, kind)
		src.lease = l
		return src, nil
	}
	return b.open(ctx, path)
}

// Line returns Line i, or "" when out of range.
func (s *source) Line(i int) string {
	if i < 0 || i >= len(s.Lines) {
		return ""
	}
	return s.Lines[i]
}

// CheckPosition reports whether line and character (0-based, UTF-16)
// address a place in the file, with a message saying what is valid.
func (s *source) CheckPosition(line, char int) error {
	if line < 0 || char < 0 {
		return fmt.Errorf("line and character are 0-based and must not be negative")
	}
	if line >= len(s.Lines) {
		return fmt.Errorf("line %d is past the end of the file, which has lines 0 to %d", line, len(s.Lines)-1)
	}
	if n := iplace.UTF16Len(s.Lines[line]); char > n {
		return fmt.Errorf("character %d is past the end of line %d, which has %d UTF-16 code units", char, line, n)
	}
	return nil
}

// End is the position just past the last character of the file.
func (s *source) End() (line, char int) {
	last := len(s.Lines) - 1
	return last, iplace.UTF16Len(s.Lines[last])
}
