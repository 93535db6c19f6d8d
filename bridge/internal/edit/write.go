package edit

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// A File is one file of a change on its way to disk.
type File struct {
	// Path is the file as gopls named it: absolute, clean, inside the
	// root.
	Path string
	// Name is how messages name it.
	Name string
	// Created says the change creates the file, which must not exist.
	Created bool
	// Sum is the SHA-256 of the bytes the edits were computed from,
	// which the file must still hold to be written.
	Sum [32]byte
	// After is the new content.
	After string
}

// A Writer writes changes to files inside the root of its gate.
type Writer struct {
	Gate *place.Gate
	// BeforeWrite, if set, runs after the new contents are prepared and
	// before the targets are locked and checked: tests change a file
	// there to race the write.
	BeforeWrite func()
	// AfterCheck, if set, runs after every target passed its first check
	// and before the first is replaced: tests change a file there to race
	// the last check each file gets right before its replacement.
	AfterCheck func()
	// Journal is the directory of the root's journals (see JournalDir):
	// every write is recorded there before it replaces a file, so that
	// a crash part-way is rolled back at the next start. Empty: no
	// journal (tests of other things).
	Journal string
	// Replaced, if set, runs with the number of targets replaced so far:
	// right before the first is replaced (0), then after each. Tests stop
	// the process there, as a crash would (see killAfterRenames).
	Replaced func(n int)
}

// killAfterRenamesEnv names the environment variable, for tests only,
// that makes a write kill its own process (SIGKILL) once that many of its
// targets were replaced: the crash that tests of the journal's recovery
// through the real binary need, which gopls cannot be made to cause.
const killAfterRenamesEnv = "GOPLSMCP_TEST_KILL_AFTER_RENAMES"

// replaced runs the Replaced hook, or the kill of killAfterRenamesEnv.
func (w *Writer) replaced(n int) {
	if w.Replaced != nil {
		w.Replaced(n)
		return
	}
	if v, ok := os.LookupEnv(killAfterRenamesEnv); ok && v == strconv.Itoa(n) {
		if p, err := os.FindProcess(os.Getpid()); err == nil && p.Kill() == nil {
			select {} // the kill is on its way
		}
		os.Exit(137) // as near a kill as is left
	}
}

// locks are the per-file write locks of the process, by real path: two
// sessions (or two calls) applying to one file take turns, and each
// re-checks the file after the other wrote it.
var locks sync.Map // string → *sync.Mutex

func lockFile(path string) func() {
	m, _ := locks.LoadOrStore(path, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// pending is one file prepared to be written.
type pending struct {
	f      *File
	target string // the real path written
	// tmp is the new content beside it; "" when written in place, and
	// once renamed or linked.
	tmp     string
	inPlace bool
	// before are the bytes the edits apply to, which the journal keeps
	// and an undo gives back.
	before []byte
	// entry is the file in the journal.
	entry journalEntry
}

// Write writes files, each atomically where it can, and all or nothing.
// Before the first file is replaced the write is recorded in a journal
// in w.Journal (see Recover); right before, every target is checked
// again, under its lock: it must still resolve to where it did inside
// the root and hold the bytes its edits were computed from (or, for a
// new file, still not exist). If any fails nothing is written and the
// error names the file. If a replacement fails part-way, the files
// already replaced are put back. written holds the paths left written
// (as named and as resolved), with whether each was created: empty
// unless a file could not be put back, which the error then names.
func (w *Writer) Write(files []File) (written map[string]bool, err error) {
	var ps []*pending
	var j *journal
	keep := false
	defer func() {
		for _, p := range ps {
			if p.tmp != "" {
				_ = os.Remove(p.tmp)
			}
		}
		if j != nil {
			j.finish(keep)
		}
	}()
	for i := range files {
		f := &files[i]
		t, err := w.target(f)
		if err != nil {
			return nil, err
		}
		p := &pending{f: f, target: t.path}
		if !f.Created {
			// Read now for the journal; checked again under the lock.
			if p.before, err = w.Gate.ReadFile(t.path); err != nil || sha256.Sum256(p.before) != f.Sum {
				return nil, changedError(f)
			}
		}
		// Renaming over a hard-linked file would leave the other names
		// holding the old content.
		p.inPlace = !f.Created && t.links > 1
		if !p.inPlace {
			p.tmp = tempName(t.path)
		}
		p.entry = journalEntry{Target: t.path, Tmp: p.tmp, Created: f.Created, InPlace: p.inPlace, After: hexSum([]byte(f.After))}
		if !f.Created {
			p.entry.Before = hexSum(p.before)
		}
		ps = append(ps, p)
	}
	if w.Journal != "" {
		// The temporary files are named, not made yet: a crash leaves
		// none the journal does not name.
		if j, err = openJournal(w.Journal, w.Gate.Root(), ps); err != nil {
			return nil, fmt.Errorf("recording the write in its journal failed (%v); nothing was written", unwrap(err))
		}
	}
	for _, p := range ps {
		if p.tmp == "" {
			continue
		}
		var err error
		if p.f.Created {
			err = writeTemp(p.tmp, p.f.After, 0o644, nil)
		} else {
			t, terr := w.target(p.f)
			if err = terr; err == nil {
				err = writeTemp(p.tmp, p.f.After, t.mode, t.owner)
			}
			if errors.Is(err, errOwner) {
				p.inPlace, err = true, nil
			}
		}
		if err != nil || p.inPlace {
			p.tmp = "" // removed by writeTemp, or never made
		}
		if err != nil {
			return nil, fmt.Errorf("preparing the write of %s: %v; nothing was written", p.f.Name, err)
		}
	}
	if w.BeforeWrite != nil {
		w.BeforeWrite()
	}
	targets := make([]string, 0, len(ps))
	for _, p := range ps {
		targets = append(targets, p.target)
	}
	slices.Sort(targets)
	for _, t := range slices.Compact(targets) {
		defer lockFile(t)()
	}
	for _, p := range ps {
		if err := w.checkUnchanged(p); err != nil {
			return nil, err
		}
	}
	if w.AfterCheck != nil {
		w.AfterCheck()
	}
	written = map[string]bool{}
	for i, p := range ps {
		w.replaced(i)
		// Checked again right before its own replacement: the check of
		// every file above came before the others were written, and an
		// editor that saved meanwhile would lose its save. A file that
		// fails now undoes the files written before it.
		if err := w.checkUnchanged(p); err != nil {
			written, keep, err = restore(ps[:i], written, err)
			return written, err
		}
		var err error
		switch {
		case p.f.Created:
			// Linked, not renamed: it fails if something appeared there.
			err = os.Link(p.tmp, p.target)
			_ = os.Remove(p.tmp)
		case p.inPlace:
			err = writeInPlace(p.target, p.f.After)
		default:
			err = os.Rename(p.tmp, p.target)
		}
		p.tmp = ""
		if err != nil {
			// An in-place write may have been cut short: it is undone
			// too if it holds the new bytes, else left and named.
			done := ps[:i]
			if p.inPlace {
				done = ps[:i+1]
			}
			cause := fmt.Errorf("writing %s failed (%v) after %d of %d files were written", p.f.Name, unwrap(err), i, len(ps))
			written, keep, err = restore(done, written, cause)
			if err == cause {
				err = fmt.Errorf("%v; they were put back, so nothing was written", cause)
			}
			return written, err
		}
		written[p.f.Path] = p.f.Created
		written[p.target] = p.f.Created
	}
	w.replaced(len(ps))
	return written, nil
}

// tempName is the name of a new temporary file beside target. It starts
// with a dot, so that neither the go command nor the watcher takes it
// for a source file.
func tempName(target string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".goplsmcp-"+randomName())
}

// changedError says f does not hold the bytes its edits apply to.
func changedError(f *File) error {
	return fmt.Errorf("%s on disk is not the text the edits were computed for: it changed since, or the call gave unsaved text for it; nothing was written; call again (without text) to compute the edits afresh", f.Name)
}

func unwrap(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// target is where a file is written and what it must keep.
type target struct {
	path  string
	mode  fs.FileMode
	owner *owner // nil when unknown or for a new file
	links uint64
}

// target resolves where f is written: the real path of an existing
// regular file inside the root, or, for a new file, a path in an
// existing directory inside the root.
func (w *Writer) target(f *File) (target, error) {
	root := w.Gate.Root()
	if f.Created {
		dir, err := filepath.EvalSymlinks(filepath.Dir(f.Path))
		if err != nil {
			return target{}, fmt.Errorf("the change creates %s, whose directory does not exist; create it first", f.Name)
		}
		if !place.Within(root, dir) {
			return target{}, fmt.Errorf("the change creates %s, whose directory leads outside the workspace root; nothing was written", f.Name)
		}
		return target{path: filepath.Join(dir, filepath.Base(f.Path))}, nil
	}
	real, err := filepath.EvalSymlinks(f.Path)
	if err != nil {
		return target{}, fmt.Errorf("%s is not on disk (a snippet, or a file deleted since the edits were computed), and apply writes files on disk; nothing was written", f.Name)
	}
	if !place.Within(root, real) {
		return target{}, fmt.Errorf("%s leads outside the workspace root through a symbolic link, and goplsmcp writes only inside it; nothing was written", f.Name)
	}
	fi, err := os.Lstat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return target{}, fmt.Errorf("%s is not a regular file; nothing was written", f.Name)
	}
	o, links := ownerOf(fi)
	return target{path: real, mode: fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), owner: o, links: links}, nil
}

// checkUnchanged checks, under the target's lock, that it still resolves
// where it did and holds the bytes the edits apply to.
func (w *Writer) checkUnchanged(p *pending) error {
	t, err := w.target(p.f)
	if err != nil {
		return err
	}
	if t.path != p.target {
		return fmt.Errorf("%s now resolves to another file than when the edits were computed; nothing was written; call again", p.f.Name)
	}
	if p.f.Created {
		if _, err := os.Lstat(t.path); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the change creates %s, which exists now; nothing was written; call again", p.f.Name)
		}
		return nil
	}
	data, err := w.Gate.ReadFile(t.path)
	if err != nil || sha256.Sum256(data) != p.f.Sum {
		return changedError(p.f)
	}
	return nil
}

// errOwner says a temporary file cannot be given the owner of the file
// it would replace.
var errOwner = errors.New("cannot keep the file's owner")

// writeTemp writes content to the new temporary file name (see
// tempName), with the given mode and owner. On any failure it is
// removed.
func writeTemp(name, content string, mode fs.FileMode, o *owner) error {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	// The owner first: changing it clears the setuid and setgid bits.
	if err == nil && o != nil {
		err = o.keep(f)
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(name)
		return err
	}
	return nil
}

// writeInPlace replaces the content of the file at path, keeping its
// inode (and so its hard links, mode and owner). Not atomic: it is used
// only where a rename would lose what the file is.
func writeInPlace(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// restore undoes the files of done, written by this change before one
// of its files failed (cause), with the undo recovery uses: each that
// holds what the change wrote gets back its bytes before, a created file
// is removed. Nothing of the change is then left on disk, as the error
// says; if a file cannot be put back, or was changed by someone else
// meanwhile, the error names what stays, and keep says the journal is
// kept so that the next start tries again.
func restore(done []*pending, written map[string]bool, cause error) (_ map[string]bool, keep bool, _ error) {
	var stuck []string
	for i := len(done) - 1; i >= 0; i-- {
		p := done[i]
		out, err := undo(&p.entry, p.before)
		if err != nil {
			keep = true
		}
		if err != nil || out == foreign {
			stuck = append(stuck, p.f.Name)
			continue
		}
		delete(written, p.f.Path)
		delete(written, p.target)
	}
	if len(stuck) > 0 {
		slices.Reverse(stuck)
		return written, keep, fmt.Errorf("%v; the files written before it could not all be put back (%s, which hold the new text or were changed since); check them with git diff",
			cause, strings.Join(stuck, ", "))
	}
	return nil, false, cause
}

// writeTempLike writes content to a new temporary file beside target
// with target's current mode and owner (those the change wrote it with),
// or errOwner.
func writeTempLike(target, content string) (string, error) {
	fi, err := os.Lstat(target)
	if err != nil {
		return "", err
	}
	o, _ := ownerOf(fi)
	tmp := tempName(target)
	return tmp, writeTemp(tmp, content, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), o)
}
