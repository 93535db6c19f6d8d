package edit

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// A write keeps a journal from before it replaces its first target until
// after its last: what each target is, the temporary file holding its new
// bytes, the SHA-256 of its bytes before and after, and the bytes before.
// The journal is a file of its own in a directory per root, locked by the
// writing process for as long as it lives (the lock goes with the
// process). A journal found unlocked was left by a process that died
// during a write, and is resolved when goplsmcp next starts on the root
// (Recover): the write is rolled back.
//
// Rolled back, not completed: a call interrupted by a crash was never
// answered as applied (or was answered that it was not re-sent), so the
// files must say it did not happen; and rolling back needs only the old
// bytes and a check of each file, where completing would rename temporary
// files whose targets the user may have edited since. Either way a file
// that holds neither the bytes before nor those after is not touched.

// journalMagic starts every journal: its format.
const journalMagic = "goplsmcp-journal 1\n"

// journalHeader is the JSON line after journalMagic; the bytes before of
// the modified files follow it, Blob bytes in all.
type journalHeader struct {
	Root  string         `json:"root"`
	PID   int            `json:"pid"`
	Files []journalEntry `json:"files"`
	Blob  int64          `json:"blob"`
}

// A journalEntry is one target of a write.
type journalEntry struct {
	Target  string `json:"target"`            // the real path replaced
	Tmp     string `json:"tmp,omitempty"`     // the temporary file of its new bytes
	Created bool   `json:"created,omitempty"` // the write creates it
	InPlace bool   `json:"inPlace,omitempty"` // hard-linked: written in place
	Before  string `json:"before,omitempty"`  // SHA-256 of its bytes before, hex
	After   string `json:"after"`             // SHA-256 of its bytes after, hex
	Off     int64  `json:"off,omitempty"`     // where its bytes before start in the blob
	Len     int64  `json:"len,omitempty"`     // and their length
}

// JournalDir is the directory where writes to files under root keep
// their journals: one per root (named by a hash of its path), under the
// user's state directory ($XDG_STATE_HOME, else ~/.local/state; on macOS
// ~/Library/Application Support, on Windows %LocalAppData%). Not the
// runtime directory, which is emptied at logout or reboot: a journal must
// outlive what the temporary files beside the targets outlive (a power
// cut included). Not in the workspace either, which holds only the
// temporary files, as before.
func JournalDir(root string) (string, error) {
	base, err := stateDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, "goplsmcp", "journal", hex.EncodeToString(sum[:8])), nil
}

// stateDir is the user's directory for state that outlives a process and
// a reboot but is no configuration.
func stateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	switch runtime.GOOS {
	case "windows":
		return os.UserCacheDir() // %LocalAppData%, not roamed
	case "darwin", "ios":
		return os.UserConfigDir() // ~/Library/Application Support
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state"), nil
}

// checkJournalDir returns an error unless the journal directory dir, and
// the goplsmcp and journal folders above it that JournalDir made, are
// this user's own (PrivateDir): a journal's bytes are written back into
// the workspace, so one planted by another user (in a shared or loose
// $XDG_STATE_HOME, say) must never be read. A folder not made yet is
// made 0700 when a journal is written.
func checkJournalDir(dir string) error {
	levels := []string{dir}
	if parent := filepath.Dir(dir); filepath.Base(parent) == "journal" && filepath.Base(filepath.Dir(parent)) == "goplsmcp" {
		levels = append(levels, parent, filepath.Dir(parent))
	}
	for _, d := range levels {
		if err := PrivateDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the journal directory is not this user's own: %w", err)
		}
	}
	return nil
}

// inRoot returns path with the links of its folder resolved if that
// lies inside root (itself resolved), or an error: a folder replaced by
// a link since the write must not lead a recovery's write out of the
// root, nor to another file than the one the journal names.
func inRoot(root, path string) (string, error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	real := filepath.Join(dir, filepath.Base(path))
	if !place.Within(root, real) || real != path {
		return "", fmt.Errorf("%s is now reached through a symbolic link (to %s)", path, real)
	}
	return real, nil
}

// A journal is the journal of a write under way, locked by this process.
type journal struct {
	f    *os.File
	path string
}

// openJournal records the write of ps in a new journal in dir, durably,
// and keeps it locked. Nothing of the write is on disk yet: the
// temporary files are made after, so that a crash leaves none the
// journal does not name.
func openJournal(dir, root string, ps []*pending) (*journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := checkJournalDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, randomName()+".journal")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	j := &journal{f: f, path: path}
	if err := j.record(root, ps); err != nil {
		j.finish(false)
		return nil, err
	}
	return j, nil
}

func (j *journal) record(root string, ps []*pending) error {
	if err := lockJournal(j.f); err != nil {
		return err
	}
	h := journalHeader{Root: root, PID: os.Getpid()}
	for _, p := range ps {
		h.Files = append(h.Files, p.entry)
		if !p.entry.Created {
			e := &h.Files[len(h.Files)-1]
			e.Off, e.Len = h.Blob, int64(len(p.before))
			h.Blob += e.Len
		}
	}
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(j.f)
	bw.WriteString(journalMagic)
	bw.Write(line)
	bw.WriteByte('\n')
	for _, p := range ps {
		if !p.entry.Created {
			bw.Write(p.before)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(j.path)); err != nil {
		return err
	}
	// A goplsmcp starting on the root may have taken the journal for a
	// dead one's between its creation and the lock, and removed it.
	fi, err := j.f.Stat()
	if err != nil {
		return err
	}
	if cur, err := os.Stat(j.path); err != nil || !os.SameFile(fi, cur) {
		return errors.New("another goplsmcp removed the journal")
	}
	return nil
}

// finish ends the journal: emptied and removed once the write is done or
// undone, or, with keep, left whole for the next start to resolve.
func (j *journal) finish(keep bool) {
	if !keep {
		// Emptied first: a journal is removed only after it is closed on
		// Windows, and a recovery that finds it empty then has nothing
		// to undo.
		_ = j.f.Truncate(0)
	}
	removed := keep || os.Remove(j.path) == nil
	_ = j.f.Close()
	if !removed {
		_ = os.Remove(j.path)
	}
}

// randomName is a name no other write picks.
func randomName() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func hexSum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// An outcome is what undo found and did.
type outcome int

const (
	asBefore outcome = iota // the file held its bytes before: untouched
	putBack                 // it held the write's bytes: given back its bytes before (or removed, if created)
	foreign                 // it held other bytes, or is no regular file: untouched
)

// undo puts the target of e back as it was before the write, when it
// holds exactly what the write made it: before are its bytes then. A
// target that holds anything else was changed since by someone else and
// is not touched (foreign). It is the one undo, of a write that failed
// part-way and of one a crash interrupted.
func undo(e *journalEntry, before []byte) (outcome, error) {
	fi, err := os.Lstat(e.Target)
	if errors.Is(err, fs.ErrNotExist) && e.Created {
		return asBefore, nil
	}
	if err != nil || !fi.Mode().IsRegular() {
		return foreign, nil
	}
	data, err := os.ReadFile(e.Target)
	if err != nil {
		return foreign, err
	}
	switch sum := hexSum(data); {
	case !e.Created && sum == e.Before:
		return asBefore, nil
	case sum != e.After:
		return foreign, nil
	case e.Created:
		return putBack, os.Remove(e.Target)
	}
	if _, links := ownerOf(fi); links > 1 {
		return putBack, writeInPlace(e.Target, string(before))
	}
	tmp, err := writeTempLike(e.Target, string(before))
	if errors.Is(err, errOwner) {
		return putBack, writeInPlace(e.Target, string(before))
	}
	if err != nil {
		return putBack, err
	}
	if err := os.Rename(tmp, e.Target); err != nil {
		_ = os.Remove(tmp)
		return putBack, err
	}
	return putBack, nil
}

// Recovered is what Recover did.
type Recovered struct {
	// Journals counts the journals of interrupted writes resolved.
	Journals int
	// PutBack are the files given back their bytes before (or removed).
	PutBack []string
	// Left are the files that held neither their bytes before nor after
	// the write, and were not touched.
	Left []string
	// Temps counts the temporary files removed.
	Temps int
}

// Recover resolves the journals in dir (see JournalDir) of writes to
// files under root that a process ended during: each is rolled back
// (see undo) and its temporary files removed, then it is removed. A
// journal still locked is a running goplsmcp's, and left to it; one that
// two starting processes find is resolved by the first to lock it. A
// journal that cannot be fully resolved (an I/O error) is kept, to be
// tried again at the next start.
func Recover(dir, root string, log *slog.Logger) (Recovered, error) {
	var rec Recovered
	if err := checkJournalDir(dir); err != nil {
		// Refused, left in place, and said: the user removes it.
		log.Warn("refused the journals of interrupted applies, left in place: their directory is not this user's own; remove it if you did not make it so", "dir", dir, "error", err)
		return rec, nil
	}
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("reading the journals: %w", err)
	}
	var errs []error
	for _, d := range names {
		if !strings.HasSuffix(d.Name(), ".journal") {
			continue
		}
		if err := recoverJournal(filepath.Join(dir, d.Name()), root, log, &rec); err != nil {
			errs = append(errs, fmt.Errorf("resolving the journal %s: %w", d.Name(), err))
		}
	}
	return rec, errors.Join(errs...)
}

func recoverJournal(path, root string, log *slog.Logger, rec *Recovered) error {
	f, err := openNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil || PrivateFile(fi, 0) != nil {
		f.Close()
		if err == nil {
			err = PrivateFile(fi, 0)
		}
		log.Warn("refused a journal that is not this user's own, left in place; remove it if you did not make it", "journal", path, "error", err)
		return nil
	}
	j := &journal{f: f, path: path}
	if locked, err := tryLockJournal(f); err != nil || !locked {
		f.Close()
		return err // nil when a live goplsmcp is writing
	}
	fi, err := f.Stat()
	if cur, serr := os.Stat(path); err != nil || serr != nil || !os.SameFile(fi, cur) {
		f.Close() // resolved meanwhile by another process
		return nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return err
	}
	h, blob, ok := parseJournal(data)
	if !ok {
		// Empty (the write ended) or cut short (the process died while
		// writing it, before any temporary file existed; or the file was
		// cut since): nothing to roll back, but a journal cut short is
		// said, and the temporary files it names removed.
		if len(data) > 0 {
			temps := 0
			for _, e := range h.Files {
				if e.Tmp == "" || !place.Within(root, e.Tmp) {
					continue
				}
				if tmp, err := inRoot(root, e.Tmp); err == nil {
					if fi, err := os.Lstat(tmp); err == nil && fi.Mode().IsRegular() && os.Remove(tmp) == nil {
						temps++
					}
				}
			}
			rec.Temps += temps
			log.Warn("removed the journal of an apply that was cut short, so nothing of it is rolled back; check its files with git diff",
				"journal", path, "bytes", len(data), "files", len(h.Files), "temporary_files_removed", temps)
		}
		j.finish(false)
		return nil
	}
	if h.Root != root {
		f.Close()
		return fmt.Errorf("it is of the root %s", h.Root)
	}
	rec.Journals++
	var errs []error
	for i := range h.Files {
		e := &h.Files[i]
		if !place.Within(root, e.Target) || (e.Tmp != "" && !place.Within(root, e.Tmp)) {
			errs = append(errs, fmt.Errorf("%s is outside the root", e.Target))
			continue
		}
		if _, err := inRoot(root, e.Target); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				rec.Left = append(rec.Left, e.Target)
				log.Warn("a file of an interrupted apply is left as it is; check it with git diff", "file", e.Target, "error", err)
				continue
			}
		}
		if e.Tmp != "" {
			if _, err := inRoot(root, e.Tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
				rec.Left = append(rec.Left, e.Target)
				log.Warn("a file of an interrupted apply is left as it is; check it with git diff", "file", e.Target, "error", err)
				continue
			}
			if fi, err := os.Lstat(e.Tmp); err == nil && fi.Mode().IsRegular() {
				if err := os.Remove(e.Tmp); err != nil {
					errs = append(errs, err)
				} else {
					rec.Temps++
				}
			}
		}
		var before []byte
		if !e.Created {
			if e.Off < 0 || e.Len < 0 || e.Off+e.Len > int64(len(blob)) {
				errs = append(errs, fmt.Errorf("the bytes of %s are not in it", e.Target))
				continue
			}
			before = blob[e.Off : e.Off+e.Len]
		}
		switch out, err := undo(e, before); {
		case err != nil:
			errs = append(errs, fmt.Errorf("putting back %s: %w", e.Target, err))
		case out == putBack:
			rec.PutBack = append(rec.PutBack, e.Target)
		case out == foreign:
			rec.Left = append(rec.Left, e.Target)
			log.Warn("a file of an interrupted apply was changed since, and is left as it is; check it with git diff", "file", e.Target)
		}
	}
	if len(errs) > 0 {
		j.finish(true)
		return errors.Join(errs...)
	}
	j.finish(false)
	return nil
}

// parseJournal splits a journal into its header and its bytes before;
// ok is false for a journal that is empty or cut short.
func parseJournal(data []byte) (h journalHeader, blob []byte, ok bool) {
	rest, found := bytes.CutPrefix(data, []byte(journalMagic))
	if !found {
		return h, nil, false
	}
	line, blob, found := bytes.Cut(rest, []byte("\n"))
	if !found || json.Unmarshal(line, &h) != nil {
		return journalHeader{}, nil, false
	}
	if int64(len(blob)) != h.Blob {
		return h, nil, false // its header, for the temporary files it names
	}
	return h, blob, true
}
