package bridge

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// Doc names the code a tool works on: a file, unsaved text for a file, a
// snippet, or a buffer opened by an earlier call.
type Doc struct {
	File string `json:"file,omitempty" jsonschema:"Go file path"`
	Text string `json:"text,omitempty" jsonschema:"unsaved source; alone, a whole-file snippet"`
	URI  string `json:"uri,omitempty" jsonschema:"buffer uri from a result"`
}

// given reports whether any field of d is set.
func (d Doc) given() bool { return d.File != "" || d.Text != "" || d.URI != "" }

// overlay reports whether d gives unsaved text for a file, which the
// session gate must know before the call runs (see makesOverlay).
func (d Doc) overlay() bool { return d.File != "" && d.Text != "" }

// check says what is wrong with the combination of fields, if anything;
// text may hold at most maxText characters.
func (d Doc) check(maxText int) error {
	switch {
	case d.File != "" && d.URI != "":
		return errors.New("pass file or uri, not both")
	case d.URI != "" && d.Text != "":
		return errors.New("text goes with file (an unsaved version of it) or alone (a snippet), not with uri")
	case !d.given():
		return errors.New("say which code: pass file (a path), uri (a buffer from an earlier result) or text (a snippet)")
	}
	if d.Text != "" {
		if !utf8.ValidString(d.Text) {
			return errors.New("text is not valid UTF-8")
		}
		if n := utf8.RuneCountInString(d.Text); n > maxText {
			return fmt.Errorf("text has %d characters, more than the %d allowed (--max-text-chars); send one file at a time, or a smaller snippet", n, maxText)
		}
	}
	return nil
}

// openDoc makes gopls hold the code d names and returns it. The caller
// must release the source.
func (b *Bridge) openDoc(ctx context.Context, d Doc) (*buffer.Source, error) {
	if err := d.check(b.limits.withDefaults().TextChars); err != nil {
		return nil, err
	}
	b.client.Refresh()
	if d.URI != "" {
		return b.buffers.OpenURI(ctx, b.caller(ctx), d.URI)
	}
	if d.File == "" {
		return b.buffers.OpenSnippet(ctx, b.caller(ctx), d.Text)
	}
	if err := iplace.CheckPathText(d.File); err != nil {
		return nil, err
	}
	// A snippet's path, as results show it, names the snippet.
	if uri := b.buffers.SnippetNamed(b.caller(ctx), d.File); uri != "" {
		if d.Text != "" {
			return nil, errors.New("that path is a snippet; send its text alone for a new snippet, or pass its uri to use it as it is")
		}
		return b.buffers.OpenURI(ctx, b.caller(ctx), uri)
	}
	if d.Text != "" {
		// A file not yet on disk may have an overlay: the file about to
		// be created.
		path, err := b.addr.NewFile(d.File)
		if err != nil {
			return nil, err
		}
		if iplace.Within(b.buffers.ScratchRoot(), path) {
			// Another session's snippet, or none.
			return nil, buffer.ErrNotOpen
		}
		return b.buffers.OpenOverlay(ctx, b.caller(ctx), path, d.Text)
	}
	path, err := b.addr.File(d.File)
	if err != nil {
		return nil, err
	}
	if b.buffers.ForeignPath(b.caller(ctx), path) {
		return nil, buffer.ErrNotOpen
	}
	return b.buffers.Open(ctx, b.caller(ctx), path)
}
