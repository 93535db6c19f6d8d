//go:build unix

package edit_test

import (
	"bytes"
	"crypto/sha256"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// logTo is a logger writing to buf.
func logTo(buf *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(buf, nil)) }

// TestRecoverRefusesOthersJournal: a journal goplsmcp did not make for
// this user (in a journal directory others may write, as a shared or
// loose $XDG_STATE_HOME leaves it; of another uid; with a second name)
// is refused with a log line and left in place, and no file of the root
// is touched.
func TestRecoverRefusesOthersJournal(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, journal, file string)
	}{
		{"directory writable by others", func(t *testing.T, journal, file string) {
			if err := os.Chmod(journal, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
		{"two names", func(t *testing.T, journal, file string) {
			if err := os.Link(file, filepath.Join(t.TempDir(), "other")); err != nil {
				t.Fatal(err)
			}
		}},
		{"another uid", func(t *testing.T, journal, file string) {
			if os.Getuid() != 0 {
				t.Skip("only root can give a file to another uid")
			}
			if err := os.Chown(file, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, journal, _, files := journalFixture(t)
			crash(t, root, journal, files, 2)
			crashed := snapshot(t, root)
			planted := snapshot(t, journal)
			var name string
			for name = range planted {
			}
			c.plant(t, journal, filepath.Join(journal, name))
			var log bytes.Buffer
			rec, err := edit.Recover(journal, root, logTo(&log))
			if err != nil {
				t.Fatal(err)
			}
			if rec.Journals != 0 || len(rec.PutBack) != 0 {
				t.Errorf("Recover = %+v; want the journal refused", rec)
			}
			if diff := cmp.Diff(crashed, snapshot(t, root)); diff != "" {
				t.Errorf("the refused journal changed the root (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(planted, snapshot(t, journal)); diff != "" {
				t.Errorf("the refused journal was not left in place (-before +after):\n%s", diff)
			}
			if !strings.Contains(log.String(), "refused") {
				t.Errorf("no log line says the journal was refused:\n%s", log.String())
			}
		})
	}
}

// TestRecoverStaysInRoot: a folder of the root replaced by a link to a
// folder outside it since the crash; the recovery writes nothing there,
// and says which file it left.
func TestRecoverStaysInRoot(t *testing.T) {
	root, journal, _, _ := journalFixture(t)
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	const before, after = "package sub\n\nvar S = 1\n", "package sub\n\nvar S = 2\n"
	if err := os.WriteFile(filepath.Join(sub, "s.go"), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []edit.File{{Path: filepath.Join(sub, "s.go"), Name: "sub/s.go", Sum: sha256Sum(before), After: after}}
	crash(t, root, journal, files, 1)
	// The folder goes; a link to one outside, holding a file with the
	// bytes the write made, takes its place.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "s.go"), []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, sub); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	rec, err := edit.Recover(journal, root, logTo(&log))
	if err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(outside, "s.go")); got != after {
		t.Errorf("the recovery wrote outside the root, through the link: %q", got)
	}
	if diff := cmp.Diff([]string{filepath.Join(sub, "s.go")}, rec.Left); diff != "" {
		t.Errorf("files left (-want +got):\n%s\n%s", diff, log.String())
	}
}

// TestRecoverTruncatedJournal: a journal one byte short is said on the
// log, and the temporary files it names are removed with it.
func TestRecoverTruncatedJournal(t *testing.T) {
	root, journal, _, files := journalFixture(t)
	crash(t, root, journal, files, 1)
	if temps(snapshot(t, root)) == 0 {
		t.Fatal("the crash left no temporary file to test with")
	}
	for name := range snapshot(t, journal) {
		path := filepath.Join(journal, name)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, fi.Size()-1); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	if _, err := edit.Recover(journal, root, logTo(&log)); err != nil {
		t.Fatal(err)
	}
	if n := temps(snapshot(t, root)); n != 0 {
		t.Errorf("%d temporary files left beside the files of the journal cut short", n)
	}
	if !strings.Contains(log.String(), "cut short") {
		t.Errorf("no log line says the journal was cut short:\n%s", log.String())
	}
	if j := snapshot(t, journal); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

// TestJournalDirRefusedToOthers: an apply keeps no journal in a journal
// directory others may write, and so writes nothing.
func TestJournalDirRefusedToOthers(t *testing.T) {
	root, journal, orig, files := journalFixture(t)
	if err := os.MkdirAll(journal, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(journal, 0o777); err != nil {
		t.Fatal(err)
	}
	w := &edit.Writer{Gate: place.New(root, nil), Journal: journal}
	if _, err := w.Write(files); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("the write with a journal directory others may write: %v", err)
	}
	if diff := cmp.Diff(orig, snapshot(t, root)); diff != "" {
		t.Errorf("files after the refused write (-want +got):\n%s", diff)
	}
}

func sha256Sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
