package bridge

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
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
func (b *Bridge) openDoc(ctx context.Context, d Doc) (*source, error) {
	if err := d.check(b.limits.withDefaults().TextChars); err != nil {
		return nil, err
	}
	b.client.Refresh()
	if d.URI != "" {
		return b.openURI(ctx, d.URI)
	}
	if d.File == "" {
		return b.openSnippet(ctx, d.Text)
	}
	if err := iplace.CheckPathText(d.File); err != nil {
		return nil, err
	}
	// A snippet's path, as results show it, names the snippet.
	if uri := b.snippetNamed(ctx, d.File); uri != "" {
		if d.Text != "" {
			return nil, errors.New("that path is a snippet; send its text alone for a new snippet, or pass its uri to use it as it is")
		}
		return b.openURI(ctx, uri)
	}
	if d.Text != "" {
		// A file not yet on disk may have an overlay: the file about to
		// be created.
		path, err := b.addr.NewFile(d.File)
		if err != nil {
			return nil, err
		}
		if iplace.Within(b.scratchRoot(), path) {
			// Another session's snippet, or none.
			return nil, errNotOpen
		}
		return b.openOverlay(ctx, path, d.Text)
	}
	path, err := b.addr.File(d.File)
	if err != nil {
		return nil, err
	}
	if b.foreignPath(ctx, path) {
		return nil, errNotOpen
	}
	return b.open(ctx, path)
}

// snippetNamed returns the URI of the calling session's snippet that file
// names, or "".
func (b *Bridge) snippetNamed(ctx context.Context, file string) string {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.root, p)
	}
	uri := lspclient.FileURI(filepath.Clean(p))
	if st, _ := b.state(ctx); st.Snippets.Has(uri) {
		return uri
	}
	return ""
}

// openSnippet holds text as a new snippet.
func (b *Bridge) openSnippet(ctx context.Context, text string) (*source, error) {
	if _, err := parser.ParseFile(token.NewFileSet(), "", text, parser.PackageClauseOnly); err != nil {
		return nil, errors.New(`text alone is a snippet and must be a whole Go file beginning with a package clause (e.g. "package scratch"); to check unsaved text of a file, pass file too`)
	}
	st, _ := b.state(ctx)
	path := filepath.Join(b.scratchRoot(), strconv.FormatInt(b.snippetSeq.Add(1), 10), "snippet.go")
	uri := lspclient.FileURI(path)
	if evict := st.Snippets.Add(uri); evict != "" {
		if _, err := b.client.CloseDocument(ctx, evict); err != nil {
			b.log.Debug("forgetting the oldest snippet", "error", err)
		}
	}
	// Nothing is written there, but gopls reads the directory: it must
	// not lead out of the root.
	if _, err := b.reads.PlaceInRoot(render.Quote(filepath.ToSlash(buffer.ScratchDir)), path); err != nil {
		b.buffers.Forget(lspclient.FileURI(path))
		b.log.Debug("scratch directory refused", "error", err)
		return nil, fmt.Errorf("snippets are unavailable: %s in the workspace root leads out of it or is not a directory; pass file with text instead", buffer.ScratchDir)
	}
	src, err := b.hold(ctx, path, text, FromSnippet)
	if err != nil {
		st.Snippets.Forget(uri)
		return nil, err
	}
	return src, nil
}

// openURI holds the buffer a uri names: a snippet as it is, an open file
// as gopls holds it (an overlay stays), else the file from disk.
func (b *Bridge) openURI(ctx context.Context, uri string) (*source, error) {
	path, err := b.addr.URI(uri)
	if err != nil {
		return nil, err
	}
	canonical := lspclient.FileURI(path)
	if st, _ := b.state(ctx); st.Snippets.Has(canonical) {
		l, ok := b.client.HoldOpen(canonical)
		if !ok {
			return nil, errors.New("that snippet is no longer open; send its text again")
		}
		src := b.newSource(path, l.Text, FromSnippet)
		src.lease = l
		return src, nil
	}
	if iplace.Within(b.scratchRoot(), path) {
		return nil, errNotOpen
	}
	real, err := b.reads.RealBuffer(render.Quote(uri), path)
	if err != nil {
		return nil, err
	}
	// Unsaved text for a file not on disk is open under its uri.
	if _, statErr := os.Lstat(real); errors.Is(statErr, fs.ErrNotExist) && b.client.IsOverlay(lspclient.FileURI(real)) {
		return b.openCurrent(ctx, real)
	}
	if real, err = b.reads.RealFile(render.Quote(uri), path); err != nil {
		return nil, err
	}
	return b.openCurrent(ctx, real)
}

// BufferURI is the uri to report for a buffer a later call can name:
// set for snippets and overlays, empty for files as on disk.
func (s *source) BufferURI() string {
	if s == nil || s.Kind == FromDisk || s.Kind == AsContext {
		return ""
	}
	return s.URI
}
