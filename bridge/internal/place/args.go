package place

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// Root confinement of arguments. Every path or URI a client passes is
// checked here before gopls sees it: first as text (what no plain path
// holds), then lexically (inside the root once cleaned), then through its
// symbolic links (the real file, or for a file not yet on disk its
// nearest existing directory, is inside the root). Paths gopls reports
// back are held to the same rule (Gate.Confined) before they are opened
// as workspace files or given edits; outside the root they are read-only
// context.

// MaxPathBytes bounds a path or URI argument; no real one is longer.
const MaxPathBytes = 4096

// maxResolved bounds the resolved paths kept.
const maxResolved = 1024

// A Resolver turns a client's file or uri argument into a clean absolute
// path confined to the root, or into a sentence saying why it is not one.
// It is the front of addressing: tools name no path but through it.
type Resolver struct {
	gate *Gate
	// epoch is the disk epoch of a directory and whether it is watched
	// (see lspclient.Client.DiskEpoch); nil when there is no watcher.
	epoch func(dir string) (uint64, bool)
	// resolved are files named lately, known to be regular files inside
	// the root with no symbolic link on the way, at a disk epoch.
	resolved memo.Gen[string, struct{}]
}

// NewResolver returns the resolver of arguments over g. epoch reports a
// directory's disk epoch and whether a watcher moves it on every change;
// it may be nil, and then nothing resolved is kept.
func NewResolver(g *Gate, epoch func(dir string) (uint64, bool)) *Resolver {
	r := &Resolver{gate: g, epoch: epoch}
	r.resolved.Max = maxResolved
	return r
}

// File turns a file argument (absolute, or relative to the root) into the
// absolute path of a regular file inside the root, following symbolic
// links. The file must exist.
func (r *Resolver) File(file string) (string, error) {
	p, err := r.Lexical(file)
	if err != nil {
		return "", err
	}
	// A file found to be regular, with no symbolic link on the way from
	// the root, stays so until the watcher reports a change (see
	// lspclient.Client.DiskEpoch); resolving it again costs a system
	// call per directory.
	var epoch uint64
	watched := false
	if r.epoch != nil {
		epoch, watched = r.epoch(filepath.Dir(p))
	}
	if _, ok := r.resolved.Get(epoch, p); watched && ok {
		return p, nil
	}
	real, err := r.gate.RealFile(render.Quote(file), p)
	if err == nil && watched && real == p {
		// Keyed by the disk epoch, which every change moves, in place of
		// a modification generation.
		r.resolved.Put(epoch, false, p, struct{}{})
	}
	return real, err
}

// NewFile is File for a file that may not exist yet (the target of
// unsaved text): its nearest existing directory must resolve inside the
// root, and no symbolic link, dangling or not, may lie on the way to it.
func (r *Resolver) NewFile(file string) (string, error) {
	p, err := r.Lexical(file)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return r.gate.RealFile(render.Quote(file), p)
	}
	real, err := r.gate.PlaceInRoot(render.Quote(file), p)
	if errors.Is(err, ErrNoParent) {
		return "", fmt.Errorf("file %s cannot be placed: %v", render.Quote(file), err)
	}
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(p, ".go") {
		return "", fmt.Errorf("file %s does not exist; unsaved text for a new file must be for a .go file", render.Quote(file))
	}
	return real, nil
}

// Buffer is the path of the buffer a file argument naming an open buffer
// names: checked as any file argument, and, when it exists, resolved
// through its links (which must stay inside the root), since buffers are
// opened under real paths.
func (r *Resolver) Buffer(file string) (string, error) {
	p, err := r.Lexical(file)
	if err != nil {
		return "", err
	}
	return r.gate.RealBuffer(render.Quote(file), p)
}

// Dir turns a dir argument — a directory's path (absolute, or relative to
// the root) or its file:// URI, as gopls mcp takes one — into the absolute
// path of a directory inside the root, following symbolic links.
func (r *Resolver) Dir(dir string) (string, error) {
	var p string
	var err error
	if hasScheme(dir) {
		p, err = r.URI(dir)
	} else {
		p, err = r.Lexical(dir)
	}
	if err != nil {
		// The words of a file or uri argument's checks, for a dir.
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, "uri "); ok {
			msg = "dir " + rest
		} else {
			msg = strings.Replace(msg, "file ", "dir ", 1)
		}
		return "", errors.New(msg)
	}
	real, err := r.gate.RealDir(p)
	switch {
	case errors.Is(err, ErrOutside):
		return "", fmt.Errorf("dir %s leads outside the workspace root through a symbolic link; pass a directory inside the root", render.Quote(dir))
	case errors.Is(err, ErrNotDir):
		return "", fmt.Errorf("dir %s is not a directory; pass a directory inside the workspace root", render.Quote(dir))
	case err != nil:
		return "", fmt.Errorf("dir %s does not exist; paths are relative to the workspace root %s", render.Quote(dir), r.gate.root)
	}
	return real, nil
}

// Lexical checks a file argument as text and returns it as a clean
// absolute path inside the root, not yet resolved through links.
func (r *Resolver) Lexical(file string) (string, error) {
	if err := CheckPathText(file); err != nil {
		return "", err
	}
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.gate.root, p)
	}
	p = filepath.Clean(p)
	if !Within(r.gate.root, p) {
		return "", r.outside("file", file, p)
	}
	return p, nil
}

// outside is the error for an argument naming p, outside the root. Code of
// the Go installation and the module cache is shown in answers as
// read-only context, and said to be so.
func (r *Resolver) outside(what, arg, p string) error {
	if where := r.gate.ReadOnlyPlace(p); where != "" {
		return fmt.Errorf("%s %s is in %s, outside the workspace root: such code is read-only context shown in answers, not accepted as %s; ask about it with go_package_api, or from workspace code that uses it", what, render.Quote(arg), where, what)
	}
	if what == "uri" {
		return fmt.Errorf("uri %s is outside the workspace root; pass a file:// URI inside %s", render.Quote(arg), r.gate.root)
	}
	return fmt.Errorf("%s %s is outside the workspace root; pass a path inside %s", what, render.Quote(arg), r.gate.root)
}

// URI checks that uri is a file:// URI of a path inside the root, as an
// earlier result gave it, and returns the path, clean but not yet resolved
// through symbolic links.
func (r *Resolver) URI(uri string) (string, error) {
	switch {
	case len(uri) > MaxPathBytes:
		return "", fmt.Errorf("uri is longer than %d bytes; pass the uri of an earlier result", MaxPathBytes)
	case !utf8.ValidString(uri) || render.HasControl(uri):
		return "", errors.New("uri contains control characters or invalid UTF-8; pass a file:// URI from an earlier result")
	}
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "", fmt.Errorf("uri %s is not a valid URI; pass the uri of an earlier result, or file with a path", render.Quote(uri))
	case u.Scheme != "file":
		return "", fmt.Errorf("uri %s is not a file:// URI; pass the uri of an earlier result, or file with a path", render.Quote(uri))
	case u.Host != "" && u.Host != "localhost", u.User != nil:
		return "", fmt.Errorf("uri %s names a host; pass a file:// URI with an empty host (file:///path), as results give them", render.Quote(uri))
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(uri, "?#"):
		return "", fmt.Errorf("uri %s has a query or fragment; pass the uri exactly as an earlier result gave it", render.Quote(uri))
	case u.Opaque != "" || !strings.HasPrefix(u.Path, "/"):
		return "", fmt.Errorf("uri %s is not an absolute file:// URI; pass the uri of an earlier result, or file with a path", render.Quote(uri))
	case hasEncodedSeparator(uri):
		return "", fmt.Errorf("uri %s percent-encodes a dot, slash, backslash or control character, which no uri in a result does; pass the uri exactly as an earlier result gave it", render.Quote(uri))
	case !utf8.ValidString(u.Path) || render.HasControl(u.Path):
		return "", fmt.Errorf("uri %s decodes to a path with control characters or invalid UTF-8; pass the uri of an earlier result", render.Quote(uri))
	case strings.ContainsRune(u.Path, '\\'):
		return "", fmt.Errorf("uri %s holds a backslash; pass the uri exactly as an earlier result gave it", render.Quote(uri))
	}
	path := filepath.Clean(filepath.FromSlash(u.Path))
	if runtime.GOOS == "windows" {
		// file:///C:/x names C:\x.
		if path, err = lspclient.URIPath(uri); err != nil {
			return "", fmt.Errorf("uri %s is not an absolute file:// URI; pass the uri of an earlier result, or file with a path", render.Quote(uri))
		}
	}
	if !Within(r.gate.root, path) {
		return "", r.outside("uri", uri, path)
	}
	return path, nil
}

// CheckPathText rejects a path argument that is empty or holds what no
// plain path on this system does: control bytes, invalid UTF-8, a URI, a
// Windows path, percent-encoding, an unexpanded variable.
func CheckPathText(file string) error {
	switch {
	case file == "":
		return errors.New("file is empty; pass a path relative to the workspace root or absolute inside it")
	case len(file) > MaxPathBytes:
		return fmt.Errorf("file is longer than %d bytes; pass a plain path", MaxPathBytes)
	case !utf8.ValidString(file):
		return errors.New("file is not valid UTF-8; pass a plain path")
	case render.HasControl(file):
		return errors.New("file contains control characters (such as NUL or a line break); pass a plain path")
	case hasScheme(file):
		return fmt.Errorf("file %s is a URI, not a path; pass it as uri, or pass a path as file", render.Quote(file))
	case runtime.GOOS != "windows" && isWindowsPath(file):
		return fmt.Errorf("file %s is a Windows path; pass a path with / separators, relative to the workspace root or absolute inside it", render.Quote(file))
	case runtime.GOOS != "windows" && strings.ContainsRune(file, '\\'):
		return fmt.Errorf("file %s contains a backslash; separate directories with /", render.Quote(file))
	case hasEncodedSeparator(file):
		return fmt.Errorf("file %s contains percent-encoding of a dot, slash, backslash or control character, which is not decoded; pass the plain path", render.Quote(file))
	case strings.HasPrefix(file, "$GOROOT") || strings.HasPrefix(file, "$GOMODCACHE"):
		return fmt.Errorf("file %s is outside the workspace root: standard library and module cache files are read-only context shown in answers, not accepted as file; ask about them with go_package_api, or from workspace code that uses them", render.Quote(file))
	case strings.HasPrefix(file, "$") || strings.HasPrefix(file, "~"):
		return fmt.Errorf("file %s starts with %c, which is not expanded; pass a path relative to the workspace root or absolute inside it", render.Quote(file), file[0])
	}
	return nil
}

// hasScheme reports whether s starts like a URI: a scheme and a colon,
// other than a one-letter drive.
func hasScheme(s string) bool {
	i := strings.IndexByte(s, ':')
	if i < 2 {
		return false
	}
	for j, r := range s[:i] {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')
		if !ok {
			return false
		}
	}
	return true
}

// isWindowsPath reports whether s is a drive path (C:\..., C:/..., C:x) or
// a UNC path (\\server\share).
func isWindowsPath(s string) bool {
	if strings.HasPrefix(s, `\\`) {
		return true
	}
	if len(s) >= 2 && s[1] == ':' {
		c := s[0]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return false
}

// hasEncodedSeparator reports whether s holds a percent-encoded dot,
// slash, backslash or control byte: the makings of a traversal that a
// later decoding would reveal.
func hasEncodedSeparator(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		v, ok := unhex2(s[i+1], s[i+2])
		if ok && (v == '.' || v == '/' || v == '\\' || v < 0x20 || v == 0x7f) {
			return true
		}
	}
	return false
}

func unhex2(a, b byte) (byte, bool) {
	h, ok1 := unhex(a)
	l, ok2 := unhex(b)
	return h<<4 | l, ok1 && ok2
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
