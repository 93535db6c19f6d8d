package place

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Resolution of paths inside the root through their symbolic links: the
// addressing half of the gate. Messages name a path by the name the
// caller gives, already quoted for echoing.

// RealFile resolves p, a clean absolute path inside the root named in
// messages as name (already quoted), to the regular file it names inside
// the root.
func (g *Gate) RealFile(name, p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return "", fmt.Errorf("file %s is a symbolic link that leads nowhere; pass a path inside the workspace root", name)
			}
			if _, perr := g.PlaceInRoot(name, p); perr != nil && !errors.Is(perr, ErrNoParent) {
				// A dangling link or a link out on the way says more
				// than "does not exist".
				return "", perr
			}
			return "", fmt.Errorf("file %s does not exist; paths are relative to the workspace root %s", name, g.root)
		}
		return "", fmt.Errorf("file %s cannot be resolved: %v", name, PathErrText(err))
	}
	if !Within(g.root, real) {
		return "", fmt.Errorf("file %s leads outside the workspace root through a symbolic link; only files inside the root are read", name)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("file %s cannot be read: %v", name, PathErrText(err))
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%s is a directory; pass a file", name)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("file %s is not a regular file (a device, pipe or socket); pass a Go source file", name)
	}
	return real, nil
}

// ErrNoParent marks a path whose nearest existing ancestor is not a
// directory.
var ErrNoParent = errors.New("a part of the path is a file, not a directory")

// PlaceInRoot returns where p, a clean absolute path inside the root that
// does not exist, would be: its nearest existing ancestor resolved through
// symbolic links, which must be a directory inside the root, joined with
// the rest. name names p in messages (already quoted).
func (g *Gate) PlaceInRoot(name, p string) (string, error) {
	var rest []string
	dir := p
	for {
		rest = append(rest, filepath.Base(dir))
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("file %s cannot be placed: no part of it exists", name)
		}
		dir = parent
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("file %s cannot be resolved: %v", name, PathErrText(err))
		}
		real := dir
		if fi.Mode()&fs.ModeSymlink != 0 {
			real, err = filepath.EvalSymlinks(dir)
			if err != nil {
				return "", fmt.Errorf("file %s lies under a symbolic link that leads nowhere; pass a path inside the workspace root", name)
			}
		} else if Within(g.root, dir) {
			// The root is free of links; a directory below it may
			// still sit under one.
			if real, err = filepath.EvalSymlinks(dir); err != nil {
				return "", fmt.Errorf("file %s cannot be resolved: %v", name, PathErrText(err))
			}
		}
		if !Within(g.root, real) {
			return "", fmt.Errorf("file %s leads outside the workspace root through a symbolic link; only files inside the root are read", name)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return "", ErrNoParent
		}
		for i := len(rest) - 1; i >= 0; i-- {
			real = filepath.Join(real, rest[i])
		}
		return real, nil
	}
}

// RealBuffer resolves p, a clean path inside the root, the way buffers
// are named: through its links when it exists, else by its nearest
// existing directory.
func (g *Gate) RealBuffer(name, p string) (string, error) {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		if !Within(g.root, real) {
			return "", fmt.Errorf("file %s leads outside the workspace root through a symbolic link; only files inside the root are read", name)
		}
		return real, nil
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("file %s is a symbolic link that leads nowhere; pass a path inside the workspace root", name)
	}
	real, err := g.PlaceInRoot(name, p)
	if errors.Is(err, ErrNoParent) {
		return p, nil // nothing can be open there
	}
	return real, err
}

// Confined reports whether path, absolute and from gopls, is inside the
// root both as written and through its symbolic links (for a file not on
// disk, through its nearest existing directory). Only such files are
// opened as workspace files or given edits; others are read-only context.
func (g *Gate) Confined(path string) bool {
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) || !Within(g.root, path) {
		return false
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return Within(g.root, real)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	_, err := g.PlaceInRoot(path, path)
	return err == nil
}

// PathErrText is the reason of a file system error without the path,
// which the message names already.
func PathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ErrNotDir marks a path that resolves to something other than a
// directory.
var ErrNotDir = errors.New("not a directory")

// RealDir resolves p, clean and absolute, through its symbolic links to a
// directory inside the root. The error wraps fs.ErrNotExist, ErrOutside
// or ErrNotDir.
func (g *Gate) RealDir(p string) (string, error) {
	if !Within(g.root, p) {
		return "", fmt.Errorf("%s: %w", p, ErrOutside)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	if !Within(g.root, real) {
		return "", fmt.Errorf("%s: %w", p, ErrOutside)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s: %w", p, ErrNotDir)
	}
	return real, nil
}

// ReadDirBounded lists at most a few thousand entries of dir, a
// directory inside the root (see RealDir), sorted by name; nil if it
// cannot be read.
func (g *Gate) ReadDirBounded(dir string) []os.DirEntry {
	if _, err := g.RealDir(dir); err != nil {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, _ := f.ReadDir(5000)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries
}

// RealOrClean returns p with its symbolic links resolved, or cleaned if
// they cannot be (p does not exist); "" stays "". It is for directories
// a tool names itself (GOROOT, GOMODCACHE), not for a client's argument.
func RealOrClean(p string) string {
	if p == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}
