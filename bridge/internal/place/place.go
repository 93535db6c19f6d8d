package place

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// MaxFileBytes bounds a file read for an answer.
const MaxFileBytes = 8 << 20

// ErrOutside marks a path the gate refuses: its bytes are not read.
var ErrOutside = errors.New("outside the workspace root, the Go installation and the module cache")

// A Gate decides which files may be read for an answer. Root is fixed;
// the Go installation and the module cache are learnt on first need,
// through Dirs, since learning them runs the go command.
type Gate struct {
	root string
	dirs func() (goroot, modcache string)
}

// New returns the gate of root, which must be absolute, clean and free of
// symbolic links. dirs returns GOROOT and GOMODCACHE with their links
// resolved ("" when unknown); it may be nil.
func New(root string, dirs func() (goroot, modcache string)) *Gate {
	return &Gate{root: root, dirs: dirs}
}

// Root is the workspace root.
func (g *Gate) Root() string { return g.root }

// Readable resolves path through its symbolic links and reports the real
// path if its bytes may be read for an answer: inside the root, or Go
// source of GOROOT or the module cache. Otherwise the error wraps
// ErrOutside (or says why the path cannot be resolved).
func (g *Gate) Readable(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s is not an absolute path: %w", path, ErrOutside)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(path))
	if err != nil {
		return "", err
	}
	if g.admits(real) {
		return real, nil
	}
	return "", fmt.Errorf("%s: %w", path, ErrOutside)
}

// Shows reports whether what gopls says about a declaration in the file
// at path — its signature, value, doc comment, members, its very name in a
// listing — may be shown: the file passes the gate, or it is not on disk
// (a snippet, unsaved text of a new file) and the part of its directory
// that exists lies inside the root. A declaration outside the gate is
// withheld as its bytes are: gopls reads such files (through a committed
// directory link, a replace or go.work use of a directory outside), and
// its text would carry theirs.
func (g *Gate) Shows(path string) bool {
	_, err := g.Readable(path)
	if err == nil {
		return true
	}
	if !errors.Is(err, fs.ErrNotExist) || !filepath.IsAbs(path) || !Within(g.root, filepath.Clean(path)) {
		return false
	}
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return Within(g.root, real)
		}
		if !errors.Is(err, fs.ErrNotExist) || dir == filepath.Dir(dir) {
			return false
		}
	}
}

// A Batch answers Shows for the many paths of one answer (a search's
// hundred symbols, most in a few directories), resolving each directory's
// links once: a full resolution walks every component of the path, and
// for a hundred symbols that was a millisecond of a 17 ms search. It is
// for one answer only, since links may change between calls, and is not
// safe for concurrent use.
type Batch struct {
	g    *Gate
	dirs map[string]resolved
}

type resolved struct {
	real string
	err  error
}

// Batch returns a Batch over g.
func (g *Gate) Batch() *Batch {
	return &Batch{g: g, dirs: map[string]resolved{}}
}

// Shows is [Gate.Shows], with the directory's links resolved once per
// batch. The file itself is still looked at each time: a file that is
// not a link, in a directory that resolved, takes the short way; a link,
// a missing file or a directory that does not resolve is decided by the
// Gate as before.
func (b *Batch) Shows(path string) bool {
	if !filepath.IsAbs(path) {
		return b.g.Shows(path)
	}
	clean := filepath.Clean(path)
	dir, name := filepath.Dir(clean), filepath.Base(clean)
	r, ok := b.dirs[dir]
	if !ok {
		r.real, r.err = filepath.EvalSymlinks(dir)
		b.dirs[dir] = r
	}
	if r.err != nil || dir == clean {
		return b.g.Shows(path)
	}
	real := filepath.Join(r.real, name)
	fi, err := os.Lstat(real)
	if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		return b.g.Shows(path)
	}
	return b.g.admits(real)
}

// admits reports whether real, a path with no symbolic link, passes.
func (g *Gate) admits(real string) bool {
	if Within(g.root, real) {
		return true
	}
	if !IsGoSource(real) {
		return false
	}
	goroot, modcache := g.goDirs()
	return goroot != "" && Within(goroot, real) || modcache != "" && Within(modcache, real)
}

// IsGoSource reports whether path names Go source shown from outside the
// root: a .go file or a go.mod.
func IsGoSource(path string) bool {
	return strings.HasSuffix(path, ".go") || filepath.Base(path) == "go.mod"
}

// ReadFile reads the file at path if the gate admits it: a regular file
// of at most MaxFileBytes, opened by its real path. Anything else (a
// pipe, a device, a socket) is refused unread, since reading it could
// block or never end (see lspclient.OpenRegular).
func (g *Gate) ReadFile(path string) ([]byte, error) {
	data, _, err := g.ReadFileInfo(path)
	return data, err
}

// ReadFileInfo is ReadFile that also returns the file's information as
// it was after the read: a change during the read shows in its
// modification time.
func (g *Gate) ReadFileInfo(path string) ([]byte, os.FileInfo, error) {
	real, err := g.Readable(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	// Opened without blocking, and checked again on what was opened: a
	// FIFO swapped in since the stat neither blocks the open nor is read,
	// and a link swapped in on the way since it was resolved would open
	// another file than the one checked.
	f, ofi, err := lspclient.OpenRegular(real)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	if !os.SameFile(fi, ofi) {
		return nil, nil, fmt.Errorf("%s changed while it was opened: %w", path, ErrOutside)
	}
	if fi.Size() > MaxFileBytes {
		return nil, nil, fmt.Errorf("%s is %d bytes, larger than the %d bytes goplsmcp reads", path, fi.Size(), MaxFileBytes)
	}
	// The file may have grown since it was measured.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, nil, fmt.Errorf("%s is larger than the %d bytes goplsmcp reads", path, MaxFileBytes)
	}
	after, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	return data, after, nil
}

// Within reports whether path is root or below it. Both must be clean.
func Within(root, path string) bool {
	if runtime.GOOS == "windows" {
		return lspclient.Within(root, path) // without regard to case
	}
	if path == root {
		return true
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Display shows path relative to the root when inside it, and as
// $GOROOT/... or $GOMODCACHE/... when in the Go installation or the module
// cache, which are read-only context; any other path as it is, with
// slashes.
func (g *Gate) Display(path string) string {
	if Within(g.root, path) {
		rel, _ := filepath.Rel(g.root, path)
		return filepath.ToSlash(rel)
	}
	goroot, modcache := g.goDirs()
	for _, d := range []struct{ dir, name string }{{goroot, "$GOROOT"}, {modcache, "$GOMODCACHE"}} {
		if d.dir != "" && Within(d.dir, path) {
			rel, _ := filepath.Rel(d.dir, path)
			return d.name + "/" + filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

// ReadOnlyPlace names the Go installation or the module cache when p is
// in one of them, else "": code there is shown, never accepted as an
// argument.
func (g *Gate) ReadOnlyPlace(p string) string {
	goroot, modcache := g.goDirs()
	switch {
	case goroot != "" && Within(goroot, p):
		return "the Go installation ($GOROOT)"
	case modcache != "" && Within(modcache, p):
		return "the module cache ($GOMODCACHE)"
	}
	return ""
}

// goDirs is dirs, or nothing when the gate was given none.
func (g *Gate) goDirs() (goroot, modcache string) {
	if g.dirs == nil {
		return "", ""
	}
	return g.dirs()
}
