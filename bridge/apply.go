package bridge

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write is the input of the tools that propose edits that says whether to
// write them.
type Write struct {
	Apply bool `json:"apply,omitempty" jsonschema:"write them (needs --allow-write)"`
}

// errWritesDisabled answers apply: true when goplsmcp may not write.
var errWritesDisabled = errors.New("apply: true needs goplsmcp started with --allow-write, and writes are disabled here; call without apply to get the edits and the diff, and apply them yourself")

// checkApply refuses apply: true when writes are not allowed, before the
// call does any work.
func (b *Bridge) checkApply(w Write) error {
	if w.Apply && !b.allowWrite {
		return errWritesDisabled
	}
	return nil
}

// writeNote ends the description of a tool that proposes edits.
func (b *Bridge) writeNote() string {
	if b.allowWrite {
		return " apply: true writes them, atomically, unless a file changed."
	}
	return " Nothing is written."
}

// A pendingWrite is one file of an edit set on its way to disk: the new
// content waits in a temporary file beside the target.
type pendingWrite struct {
	fe     *fileEdit
	target string // the real path written, symbolic links resolved
	tmp    string // "" once renamed or removed
}

// apply writes the edit set to disk, one file at a time, each atomically:
// the new content goes to a temporary file in the same directory, with the
// mode of the file it replaces, which is then renamed over it (a new file
// is linked into place, which fails if something appeared there). Right
// before the first rename, every target is checked again: it must still
// resolve inside the root, and hold the text the edits were computed for
// (by content hash) or, for a new file, still not exist. If any fails,
// nothing is written. gopls is told about the files written.
func (b *Bridge) apply(es *editSet) error {
	var ps []*pendingWrite
	defer func() {
		for _, p := range ps {
			if p.tmp != "" {
				_ = os.Remove(p.tmp)
			}
		}
	}()
	for _, fe := range es.files {
		after, err := fe.after()
		if err != nil {
			return err
		}
		target, mode, err := b.writeTarget(fe)
		if err != nil {
			return err
		}
		tmp, err := writeTemp(target, after, mode)
		if err != nil {
			return fmt.Errorf("preparing the write of %s: %v; nothing was written", b.displayPath(fe.path), err)
		}
		ps = append(ps, &pendingWrite{fe: fe, target: target, tmp: tmp})
	}
	if b.beforeWrite != nil {
		b.beforeWrite()
	}
	for _, p := range ps {
		if err := b.checkUnchanged(p); err != nil {
			return err
		}
	}
	written := map[string]bool{}
	for i, p := range ps {
		var err error
		if p.fe.created {
			err = os.Link(p.tmp, p.target)
			_ = os.Remove(p.tmp)
		} else {
			err = os.Rename(p.tmp, p.target)
		}
		p.tmp = ""
		if err != nil {
			b.client.Written(written)
			var done []string
			for _, q := range ps[:i] {
				done = append(done, b.displayPath(q.fe.path))
			}
			return fmt.Errorf("writing %s failed (%v) after %d of %d files were written (%s); check them with git diff",
				b.displayPath(p.fe.path), errors.Unwrap(err), i, len(ps), strings.Join(done, ", "))
		}
		written[p.fe.path] = p.fe.created
		written[p.target] = p.fe.created
	}
	b.client.Written(written)
	return nil
}

// writeTarget resolves where an edited file is written: the real path of
// an existing regular file inside the root, with its mode, or, for a new
// file, a path in an existing directory inside the root.
func (b *Bridge) writeTarget(fe *fileEdit) (string, fs.FileMode, error) {
	name := b.displayPath(fe.path)
	if fe.created {
		dir, err := filepath.EvalSymlinks(filepath.Dir(fe.path))
		if err != nil {
			return "", 0, fmt.Errorf("the change creates %s, whose directory does not exist; create it first", name)
		}
		if !within(b.root, dir) {
			return "", 0, fmt.Errorf("the change creates %s, whose directory leads outside the workspace root; nothing was written", name)
		}
		return filepath.Join(dir, filepath.Base(fe.path)), 0o644, nil
	}
	real, err := filepath.EvalSymlinks(fe.path)
	if err != nil {
		return "", 0, fmt.Errorf("%s is not on disk (a snippet, or a file deleted since the edits were computed), and apply writes files on disk; nothing was written", name)
	}
	if !within(b.root, real) {
		return "", 0, fmt.Errorf("%s leads outside the workspace root through a symbolic link, and goplsmcp writes only inside it; nothing was written", name)
	}
	fi, err := os.Lstat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s is not a regular file; nothing was written", name)
	}
	return real, fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), nil
}

// checkUnchanged checks, right before writing, that a target still
// resolves where it did and holds the text the edits apply to.
func (b *Bridge) checkUnchanged(p *pendingWrite) error {
	name := b.displayPath(p.fe.path)
	target, _, err := b.writeTarget(p.fe)
	if err != nil {
		return err
	}
	if target != p.target {
		return fmt.Errorf("%s now resolves to another file than when the edits were computed; nothing was written; call again", name)
	}
	if p.fe.created {
		if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the change creates %s, which exists now; nothing was written; call again", name)
		}
		return nil
	}
	data, err := readBounded(target)
	if err != nil || sha256.Sum256(data) != p.fe.sum {
		return fmt.Errorf("%s on disk is not the text the edits were computed for: it changed since, or the call gave unsaved text for it; nothing was written; call again (without text) to compute the edits afresh", name)
	}
	return nil
}

// writeTemp writes content to a new temporary file beside target, with
// the given mode, and returns its path. Its name starts with a dot, so
// that neither the go command nor the watcher takes it for a source file.
func writeTemp(target, content string, mode fs.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".goplsmcp-*")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(content)
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
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// applyIf writes es when the call said apply: true, and then marks ch,
// its rendering, applied.
func (b *Bridge) applyIf(w Write, es *editSet, ch *Changes) error {
	if !w.Apply || ch.Edits == 0 {
		return nil
	}
	if err := b.checkApply(w); err != nil {
		return err
	}
	if err := b.apply(es); err != nil {
		return err
	}
	*ch.Applied = true
	return nil
}

// propose turns an edit set into the changes an edit tool answers with,
// written first when the call asked to apply them (see applyIf).
func (b *Bridge) propose(w Write, es *editSet) (Changes, error) {
	ch, err := b.changes(es)
	if err != nil {
		return Changes{}, err
	}
	if err := b.applyIf(w, es, &ch); err != nil {
		return Changes{}, err
	}
	return ch, nil
}
