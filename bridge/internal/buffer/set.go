package buffer

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// A Caller is the session a call runs as, and whether the call passed the
// gate (Gate.Enter): only then does the gate keep the overlays it makes.
// A call that did not (a direct call outside MCP) runs as the session
// with no id.
type Caller struct {
	Session *Session
	Gated   bool
}

// SetConfig is what a [Set] is made of.
type SetConfig struct {
	// Client is the gopls that holds the buffers.
	Client *lspclient.Client
	// Reads is the read gate of the root; Addr resolves file and uri
	// arguments through it.
	Reads *place.Gate
	Addr  *place.Resolver
	// Lines keeps the lines of the texts sources are made of.
	Lines *memo.Lines
	// Gate keeps sessions apart on the shared gopls.
	Gate *Gate
	// Fault marks an error that is the server's fault.
	Fault func(error) error
	// TextChars bounds the unsaved text a call gives (in characters);
	// Timeout bounds a call, and a switch of what gopls holds.
	TextChars int
	Timeout   time.Duration
	// KeptBytes bounds the unsaved text one session keeps at once, its
	// overlays' and snippets' together (in bytes); 0 leaves it unbounded.
	// A handle keeps its session's for as long as it lives, however
	// little its client still needs it.
	KeptBytes int
	// Log receives what goes wrong on the side of a call; nil discards.
	Log *slog.Logger
	// InBuild, if set, reports whether gopls knows the file at path
	// without having it open (see gocmd.RootBuild): such a file, read
	// from disk, is opened in gopls only when the call lets go of it (see
	// lspclient.Client.HoldDisk).
	InBuild func(path string) bool
	// OtherBuild, if set, reports whether the file at path is left out of
	// the workspace's build by its build constraints (another GOOS, say;
	// see gocmd.RootBuild.Excludes): such a file, read from disk, is open
	// in gopls only while calls hold it (see
	// lspclient.Client.HoldBriefly), so that what gopls builds to answer
	// about it does not outlive the answer.
	OtherBuild func(path string) bool
}

// A Set opens sources for calls: files inside the root, unsaved text for
// them, snippets and the buffers earlier calls opened, each held in gopls
// until the call releases it; and it keeps other sessions' snippets out
// of what a session sees.
type Set struct {
	c SetConfig
	// seq numbers snippets across sessions, so that each has a scratch
	// directory of its own.
	seq atomic.Int64
}

// NewSet returns a set made of c. A nil Log discards.
func NewSet(c SetConfig) *Set {
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return &Set{c: c}
}

// ErrNotOpen answers a session that names a scratch file it does not own.
var ErrNotOpen = errors.New("that snippet is not open (snippets are forgotten after go_close, or when more than 32 are open); send its text again")

func (s *Set) newSource(path, text string, kind Kind) *Source {
	return &Source{Path: path, URI: lspclient.FileURI(path), Text: text, Lines: s.c.Lines.Lines(path, text), Kind: kind}
}

// Open reads a file inside the root from disk and makes gopls hold exactly
// that text, so that positions in the answer match what the caller sees.
// The file replaces an overlay gopls may hold for it: naming a file means
// the file as it is now. The caller must release the source.
//
// A file the gate's base (an editor whose user shares its unsaved
// buffers) holds unsaved is, for every other session that gave no text
// of its own for it, the base's text, as gopls holds it for the call.
func (s *Set) Open(ctx context.Context, c Caller, path string) (*Source, error) {
	if c.Gated {
		uri := lspclient.FileURI(path)
		if text, ok := s.c.Gate.BaseOverlay(c.Session, uri); ok && !s.c.Gate.HasOverlay(c.Session, uri) {
			if l, ok := s.c.Client.HoldOpen(uri); ok {
				if l.Text == text {
					src := s.newSource(path, l.Text, FromOverlay)
					src.editor, src.lease = true, l
					return src, nil
				}
				l.Release()
			}
		}
	}
	text, err := s.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return s.hold(ctx, c, path, text, FromDisk)
}

// ReadFile returns the text of the file at path as it is on disk now,
// read again only if it changed since it was last read (see
// lspclient.Client.ReadFile).
func (s *Set) ReadFile(path string) (string, error) {
	return s.c.Client.ReadFile(path, s.c.Reads.ReadFile)
}

// CurrentText returns the text of a file as gopls holds it: an open
// buffer's, else the file on disk's.
func (s *Set) CurrentText(path string) (string, bool) {
	if text, _, ok := s.c.Client.Document(lspclient.FileURI(path)); ok {
		return text, true
	}
	text, err := s.ReadFile(path)
	return text, err == nil
}

// OpenFile resolves a file argument inside the root and makes gopls hold
// its current text, for the tools that take a whole file. The caller must
// release the source.
func (s *Set) OpenFile(ctx context.Context, c Caller, file string) (*Source, error) {
	if file == "" {
		return nil, errors.New("file is required: pass the path of a Go file, relative to the workspace root")
	}
	path, err := s.c.Addr.File(file)
	if err != nil {
		return nil, err
	}
	return s.Open(ctx, c, path)
}

// LineCache returns the source lines of the files a call shows, in the
// text gopls holds for them (see place.Lines).
func (s *Set) LineCache() *place.Lines {
	return place.NewLines(s.CurrentText, s.c.Lines)
}

// OpenOverlay makes gopls hold text as the content of the file at path,
// without writing it, until the file is named again without text or
// closed with go_close. The caller must release the source.
func (s *Set) OpenOverlay(ctx context.Context, c Caller, path, text string) (*Source, error) {
	if err := s.c.Reads.CheckModText(path, text); err != nil {
		return nil, err
	}
	return s.hold(ctx, c, path, text, FromOverlay)
}

func (s *Set) hold(ctx context.Context, c Caller, path, text string, kind Kind) (*Source, error) {
	src := s.newSource(path, text, kind)
	if c.Gated && kind == FromOverlay && !s.c.Gate.Owns(c.Session) {
		// The gate admits a call that gives unsaved text only while
		// gopls is its session's alone (see bridge's makesOverlay); this
		// one slipped past it, which is the server's fault.
		return nil, s.c.Fault(errors.New("bridge: unsaved text given outside its session's turn at the gate"))
	}
	if c.Gated && kind != FromDisk && s.c.KeptBytes > 0 {
		if kept := s.keptBytes(c.Session, src.URI) + len(text); kept > s.c.KeptBytes {
			return nil, fmt.Errorf("this unsaved text is not kept: with it the session (or handle) would keep %s of unsaved text and snippets, more than the %s allowed; go_close the files and snippets it no longer needs, then give it again", mebibytes(kept), mebibytes(s.c.KeptBytes))
		}
	}
	var l *lspclient.Lease
	var err error
	switch {
	case kind == FromDisk && s.c.OtherBuild != nil && s.c.OtherBuild(path):
		l, err = s.c.Client.HoldBriefly(ctx, src.URI, text)
	case kind == FromDisk && s.c.InBuild != nil && !s.inGopls(src.URI) && s.c.InBuild(path):
		l, err = s.c.Client.HoldDisk(ctx, src.URI, text)
	default:
		l, err = s.c.Client.Hold(ctx, src.URI, text, kind != FromDisk)
	}
	if err != nil {
		return nil, ask.Error(err)
	}
	src.lease = l
	if c.Gated {
		switch kind {
		case FromOverlay:
			s.c.Gate.Overlaid(c.Session, src.URI, text)
		case FromDisk:
			// Naming a file means the file as it is now: the session's
			// overlay of it, if any, is gone.
			s.c.Gate.Reverted(c.Session, src.URI)
		}
	}
	return src, nil
}

// mebibytes says n bytes in MiB, as the bound's words are.
func mebibytes(n int) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// keptBytes returns the bytes of unsaved text st keeps, its overlays'
// and its snippets', but for uri's (which a new text replaces).
func (s *Set) keptBytes(st *Session, uri string) int {
	n := s.c.Gate.OverlayBytes(st, uri)
	for _, u := range st.Snippets.All() {
		if u == uri {
			continue
		}
		if text, _, ok := s.c.Client.Document(u); ok {
			n += len(text)
		}
	}
	return n
}

// UnsavedIn returns the paths in dir of c's unsaved text, its overlays
// and snippets, which may not be on disk: a listing of dir misses them.
func (s *Set) UnsavedIn(c Caller, dir string) []string {
	if c.Session == nil {
		return nil
	}
	var out []string
	for _, uri := range append(s.c.Gate.OverlayURIs(c.Session), c.Session.Snippets.All()...) {
		if p, err := lspclient.URIPath(uri); err == nil && filepath.Dir(p) == dir {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// inGopls reports whether gopls has uri open, in which case Hold and
// HoldDisk do the same and InBuild, which reads the file's header and
// looks for go.mod and go.work, need not be asked.
func (s *Set) inGopls(uri string) bool {
	_, _, ok := s.c.Client.Document(uri)
	return ok
}

// OpenCurrent is for files a call reaches on its own, such as the file
// declaring a symbol: the buffer gopls holds if it is open (an overlay
// stays an overlay), else the file from disk, or, outside the root (as
// written or through a symbolic link), the file read as context, which no
// tool edits. The caller must release the source.
func (s *Set) OpenCurrent(ctx context.Context, c Caller, path string) (*Source, error) {
	if !s.c.Reads.Confined(path) {
		text, err := s.ReadFile(path)
		if errors.Is(err, place.ErrOutside) {
			return nil, fmt.Errorf("%s leads outside the workspace root, the Go installation and the module cache, so its text is not shown; read it yourself if you trust it", s.c.Reads.Display(path))
		}
		if err != nil {
			return nil, err
		}
		return s.newSource(path, text, AsContext), nil
	}
	uri := lspclient.FileURI(path)
	if place.Within(s.ScratchRoot(), path) && !c.Session.Snippets.Has(uri) {
		return nil, ErrNotOpen
	}
	if l, ok := s.c.Client.HoldOpen(uri); ok {
		kind := FromDisk
		switch {
		case c.Session.Snippets.Has(uri):
			kind = FromSnippet
		case s.c.Client.IsOverlay(uri):
			kind = FromOverlay
		}
		src := s.newSource(path, l.Text, kind)
		src.lease = l
		return src, nil
	}
	return s.Open(ctx, c, path)
}

// SnippetNamed returns the URI of the calling session's snippet that file
// names, or "".
func (s *Set) SnippetNamed(c Caller, file string) string {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.c.Reads.Root(), p)
	}
	uri := lspclient.FileURI(filepath.Clean(p))
	if c.Session.Snippets.Has(uri) {
		return uri
	}
	return ""
}

// OpenSnippet holds text as a new snippet.
func (s *Set) OpenSnippet(ctx context.Context, c Caller, text string) (*Source, error) {
	if _, err := parser.ParseFile(token.NewFileSet(), "", text, parser.PackageClauseOnly); err != nil {
		return nil, errors.New(`text alone is a snippet and must be a whole Go file beginning with a package clause (e.g. "package scratch"); to check unsaved text of a file, pass file too`)
	}
	path := filepath.Join(s.ScratchRoot(), strconv.FormatInt(s.seq.Add(1), 10), "snippet.go")
	uri := lspclient.FileURI(path)
	if evict := c.Session.Snippets.Add(uri); evict != "" {
		if _, err := s.c.Client.CloseDocument(ctx, evict); err != nil {
			s.c.Log.Debug("forgetting the oldest snippet", "error", err)
		}
	}
	// Nothing is written there, but gopls reads the directory: it must
	// not lead out of the root.
	if _, err := s.c.Reads.PlaceInRoot(render.Quote(filepath.ToSlash(ScratchDir)), path); err != nil {
		s.c.Log.Debug("scratch directory refused", "error", err)
		return nil, fmt.Errorf("snippets are unavailable: %s in the workspace root leads out of it or is not a directory; pass file with text instead", ScratchDir)
	}
	src, err := s.hold(ctx, c, path, text, FromSnippet)
	if err != nil {
		c.Session.Snippets.Forget(uri)
		return nil, err
	}
	return src, nil
}

// OpenURI holds the buffer a uri names: a snippet as it is, an open file
// as gopls holds it (an overlay stays), else the file from disk.
func (s *Set) OpenURI(ctx context.Context, c Caller, uri string) (*Source, error) {
	path, err := s.c.Addr.URI(uri)
	if err != nil {
		return nil, err
	}
	canonical := lspclient.FileURI(path)
	if c.Session.Snippets.Has(canonical) {
		l, ok := s.c.Client.HoldOpen(canonical)
		if !ok {
			return nil, errors.New("that snippet is no longer open; send its text again")
		}
		src := s.newSource(path, l.Text, FromSnippet)
		src.lease = l
		return src, nil
	}
	if place.Within(s.ScratchRoot(), path) {
		return nil, ErrNotOpen
	}
	real, err := s.c.Reads.RealBuffer(render.Quote(uri), path)
	if err != nil {
		return nil, err
	}
	// Unsaved text for a file not on disk is open under its uri.
	if _, statErr := os.Lstat(real); errors.Is(statErr, fs.ErrNotExist) && s.c.Client.IsOverlay(lspclient.FileURI(real)) {
		return s.OpenCurrent(ctx, c, real)
	}
	if real, err = s.c.Reads.RealFile(render.Quote(uri), path); err != nil {
		return nil, err
	}
	return s.OpenCurrent(ctx, c, real)
}

// Close forgets the buffer gopls holds for uri, so that gopls sees the
// file on disk again: one of c's snippets, an overlay, or a file open
// as on disk. It says which (kind "snippet", "overlay" or "file") and
// whether gopls had it open. Another session's snippet is, as far as c
// knows, nothing: it is left alone and reported as not open.
func (s *Set) Close(ctx context.Context, c Caller, uri string) (kind string, closed bool, err error) {
	if s.Foreign(c, uri) {
		return "", false, nil
	}
	st := c.Session
	kind = "file"
	switch {
	case st.Snippets.Has(uri):
		kind = "snippet"
	case s.c.Gate.HasOverlay(st, uri) || s.c.Client.IsOverlay(uri):
		kind = "overlay"
	}
	closed, err = s.c.Client.CloseDocument(ctx, uri)
	if err != nil {
		return "", false, ask.Error(err)
	}
	switch kind {
	case "snippet":
		st.Snippets.Forget(uri)
	case "overlay":
		s.c.Gate.Reverted(st, uri)
	}
	return kind, closed, nil
}

// ScratchRoot is the directory below which every snippet lives.
func (s *Set) ScratchRoot() string {
	return filepath.Join(s.c.Reads.Root(), filepath.FromSlash(ScratchDir))
}

// Foreign reports whether uri is a snippet the calling session may not
// see: a scratch file that is not one of its own snippets.
func (s *Set) Foreign(c Caller, uri string) bool {
	if !strings.Contains(uri, "/.goplsmcp/") {
		return false
	}
	path, err := lspclient.URIPath(uri)
	if err != nil || !place.Within(s.ScratchRoot(), path) {
		return false
	}
	return !c.Session.Snippets.Has(lspclient.FileURI(path))
}

// ForeignPath is Foreign for a path.
func (s *Set) ForeignPath(c Caller, path string) bool {
	return place.Within(s.ScratchRoot(), path) && s.Foreign(c, lspclient.FileURI(path))
}

// DropForeign removes the locations in other sessions' snippets.
func (s *Set) DropForeign(c Caller, locs []protocol.Location) []protocol.Location {
	return slices.DeleteFunc(locs, func(l protocol.Location) bool { return s.Foreign(c, string(l.URI)) })
}

// ForeignPackage reports whether an import path names another session's
// snippet package (…/.goplsmcp/scratch/N).
func (s *Set) ForeignPackage(c Caller, importPath string) bool {
	before, n, ok := strings.Cut(importPath, "/.goplsmcp/scratch/")
	if !ok || before == "" || strings.Contains(n, "/") {
		return false
	}
	for _, uri := range c.Session.Snippets.All() {
		if p, err := lspclient.URIPath(uri); err == nil && filepath.Base(filepath.Dir(p)) == n {
			return false
		}
	}
	return true
}
