package bridge

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// maxTextChars bounds the source given in one text argument.
const maxTextChars = 512 << 10

// maxSnippets bounds the snippets held at once; the oldest is forgotten
// to make room for a new one.
const maxSnippets = 32

// scratchDir is where snippets live, below the root. Nothing is ever
// written there: a snippet exists only as a buffer in gopls, which
// type-checks it as a package of the module that holds the root, so it
// can import the workspace's packages. The leading dot keeps it out of
// ./... patterns.
const scratchDir = ".goplsmcp/scratch"

// buffers tracks the snippets the bridge has given gopls.
type buffers struct {
	mu       sync.Mutex
	next     int
	snippets []string // URIs, oldest first
}

func (bs *buffers) isSnippet(uri string) bool {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	for _, u := range bs.snippets {
		if u == uri {
			return true
		}
	}
	return false
}

// newSnippet reserves a fresh snippet path, and returns the URI of the
// oldest snippet to forget if there are too many.
func (bs *buffers) newSnippet(root string) (path, evict string) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.next++
	path = filepath.Join(root, filepath.FromSlash(scratchDir), strconv.Itoa(bs.next), "snippet.go")
	if len(bs.snippets) >= maxSnippets {
		evict = bs.snippets[0]
		bs.snippets = bs.snippets[1:]
	}
	bs.snippets = append(bs.snippets, lspclient.FileURI(path))
	return path, evict
}

func (bs *buffers) forget(uri string) bool {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	for i, u := range bs.snippets {
		if u == uri {
			bs.snippets = append(bs.snippets[:i], bs.snippets[i+1:]...)
			return true
		}
	}
	return false
}

// Doc names the code a tool works on: a file, unsaved text for a file, a
// snippet, or a buffer opened by an earlier call.
type Doc struct {
	File string `json:"file,omitempty" jsonschema:"path of a Go file, relative to the workspace root or absolute inside it"`
	Text string `json:"text,omitempty" jsonschema:"source held in memory, never written: with file, an unsaved version of that file; alone, a snippet (a whole Go file, package clause first) in a private scratch package, named by the uri in the result"`
	URI  string `json:"uri,omitempty" jsonschema:"a buffer already open: a snippet's uri from an earlier result, or a file:// URI inside the root (an overlay stays as given)"`
}

// given reports whether any field of d is set.
func (d Doc) given() bool { return d.File != "" || d.Text != "" || d.URI != "" }

// check says what is wrong with the combination of fields, if anything.
func (d Doc) check() error {
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
		if n := utf8.RuneCountInString(d.Text); n > maxTextChars {
			return fmt.Errorf("text has %d characters, more than the %d allowed; send one file at a time", n, maxTextChars)
		}
	}
	return nil
}

// openDoc makes gopls hold the code d names and returns it. The caller
// must release the source.
func (b *Bridge) openDoc(ctx context.Context, d Doc) (*source, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	b.client.Refresh()
	if d.URI != "" {
		return b.openURI(ctx, d.URI)
	}
	if d.File == "" {
		return b.openSnippet(ctx, d.Text)
	}
	// A snippet's path, as results show it, names the snippet.
	if uri := b.snippetNamed(d.File); uri != "" {
		if d.Text != "" {
			return nil, errors.New("that path is a snippet; send its text alone for a new snippet, or pass its uri to use it as it is")
		}
		return b.openURI(ctx, uri)
	}
	if d.Text != "" {
		// A file not yet on disk may have an overlay: the file about to
		// be created.
		path, err := b.resolveNewFile(d.File)
		if err != nil {
			return nil, err
		}
		return b.openOverlay(ctx, path, d.Text)
	}
	path, err := b.resolveFile(d.File)
	if err != nil {
		return nil, err
	}
	return b.open(ctx, path)
}

// snippetNamed returns the URI of the snippet file names, or "".
func (b *Bridge) snippetNamed(file string) string {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.root, p)
	}
	uri := lspclient.FileURI(filepath.Clean(p))
	if b.buffers.isSnippet(uri) {
		return uri
	}
	return ""
}

// openSnippet holds text as a new snippet.
func (b *Bridge) openSnippet(ctx context.Context, text string) (*source, error) {
	if _, err := parser.ParseFile(token.NewFileSet(), "", text, parser.PackageClauseOnly); err != nil {
		return nil, errors.New(`text alone is a snippet and must be a whole Go file beginning with a package clause (e.g. "package scratch"); to check unsaved text of a file, pass file too`)
	}
	path, evict := b.buffers.newSnippet(b.root)
	if evict != "" {
		if _, err := b.client.CloseDocument(ctx, evict); err != nil {
			b.log.Debug("forgetting the oldest snippet", "error", err)
		}
	}
	src, err := b.hold(ctx, path, text, fromSnippet)
	if err != nil {
		b.buffers.forget(lspclient.FileURI(path))
		return nil, err
	}
	return src, nil
}

// openURI holds the buffer a uri names: a snippet as it is, an open file
// as gopls holds it (an overlay stays), else the file from disk.
func (b *Bridge) openURI(ctx context.Context, uri string) (*source, error) {
	path, err := b.resolveURI(uri)
	if err != nil {
		return nil, err
	}
	canonical := lspclient.FileURI(path)
	if b.buffers.isSnippet(canonical) {
		l, ok := b.client.HoldOpen(canonical)
		if !ok {
			return nil, errors.New("that snippet is no longer open; send its text again")
		}
		src := newSource(path, l.Text, fromSnippet)
		src.lease = l
		return src, nil
	}
	if within(filepath.Join(b.root, filepath.FromSlash(scratchDir)), path) {
		return nil, errors.New("that snippet is not open (snippets are forgotten after go_close, or when more than 32 are open); send its text again")
	}
	real, err := b.resolveFile(path)
	if err != nil {
		return nil, err
	}
	return b.openCurrent(ctx, real)
}

// resolveURI checks that uri is a file:// URI inside the root and
// returns its path, not yet resolved through symbolic links.
func (b *Bridge) resolveURI(uri string) (string, error) {
	if hasControl(uri) || !utf8.ValidString(uri) {
		return "", errors.New("uri contains control characters or invalid UTF-8; pass a file:// URI from an earlier result")
	}
	path, err := lspclient.URIPath(uri)
	if err != nil || !filepath.IsAbs(path) {
		return "", fmt.Errorf("uri %s is not a file:// URI; pass the uri of an earlier result, or file with a path", quote(uri))
	}
	path = filepath.Clean(path)
	if !within(b.root, path) {
		return "", fmt.Errorf("uri %s is outside the workspace root %s", quote(uri), b.root)
	}
	return path, nil
}

// bufferURI is the uri to report for a buffer a later call can name:
// set for snippets and overlays, empty for files as on disk.
func (s *source) bufferURI() string {
	if s == nil || s.kind == fromDisk || s.kind == asContext {
		return ""
	}
	return s.uri
}
