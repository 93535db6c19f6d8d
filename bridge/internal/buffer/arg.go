package buffer

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// Doc names the code a tool works on: a file, unsaved text for a file, a
// snippet, or a buffer opened by an earlier call. It is part of tools'
// input schemas.
type Doc struct {
	File string `json:"file,omitempty" jsonschema:"Go file path"`
	Text string `json:"text,omitempty" jsonschema:"unsaved source; alone, a whole-file snippet"`
	URI  string `json:"uri,omitempty" jsonschema:"buffer uri from a result"`
}

// Given reports whether any field of d is set.
func (d Doc) Given() bool { return d.File != "" || d.Text != "" || d.URI != "" }

// Overlay reports whether d gives unsaved text for a file, which the
// session gate must know before the call runs (see bridge's
// makesOverlay).
func (d Doc) Overlay() bool { return d.File != "" && d.Text != "" }

// Check says what is wrong with the combination of fields, if anything;
// text may hold at most maxText characters.
func (d Doc) Check(maxText int) error {
	switch {
	case d.File != "" && d.URI != "":
		return errors.New("pass file or uri, not both")
	case d.URI != "" && d.Text != "":
		return errors.New("text goes with file (an unsaved version of it) or alone (a snippet), not with uri")
	case !d.Given():
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

// OpenDoc makes gopls hold the code d names and returns it. The caller
// must release the source.
func (s *Set) OpenDoc(ctx context.Context, c Caller, d Doc) (*Source, error) {
	if err := d.Check(s.c.TextChars); err != nil {
		return nil, err
	}
	s.c.Client.Refresh()
	if d.URI != "" {
		return s.OpenURI(ctx, c, d.URI)
	}
	if d.File == "" {
		return s.OpenSnippet(ctx, c, d.Text)
	}
	if err := place.CheckPathText(d.File); err != nil {
		return nil, err
	}
	// A snippet's path, as results show it, names the snippet.
	if uri := s.SnippetNamed(c, d.File); uri != "" {
		if d.Text != "" {
			return nil, errors.New("that path is a snippet; send its text alone for a new snippet, or pass its uri to use it as it is")
		}
		return s.OpenURI(ctx, c, uri)
	}
	if d.Text != "" {
		// A file not yet on disk may have an overlay: the file about to
		// be created.
		path, err := s.c.Addr.NewFile(d.File)
		if err != nil {
			return nil, err
		}
		if place.Within(s.ScratchRoot(), path) {
			// Another session's snippet, or none.
			return nil, ErrNotOpen
		}
		return s.OpenOverlay(ctx, c, path, d.Text)
	}
	path, err := s.c.Addr.File(d.File)
	if err != nil {
		return nil, err
	}
	if s.ForeignPath(c, path) {
		return nil, ErrNotOpen
	}
	return s.Open(ctx, c, path)
}
