package edit_test

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// crashEnv makes the test binary the writer that dies: its value is a
// crashSpec.
const crashEnv = "EDIT_TEST_CRASH"

// crashSpec is a write for a child process to die in, killed after
// KillAfter of its targets were replaced.
type crashSpec struct {
	Root, Journal string
	Files         []edit.File
	KillAfter     int
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(crashEnv); spec != "" {
		crashWrite(spec)
		os.Exit(3) // not killed: the parent fails
	}
	os.Exit(m.Run())
}

// crashWrite writes a crashSpec's files and kills its own process, as a
// crash would, when the Replaced hook reaches KillAfter.
func crashWrite(spec string) {
	var cs crashSpec
	if err := json.Unmarshal([]byte(spec), &cs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	w := &edit.Writer{Gate: place.New(cs.Root, nil), Journal: cs.Journal, Replaced: func(n int) {
		if n == cs.KillAfter {
			p, _ := os.FindProcess(os.Getpid())
			p.Kill()
			select {}
		}
	}}
	_, err := w.Write(cs.Files)
	fmt.Fprintln(os.Stderr, "the write returned:", err)
}

// crash runs the write of files in a child process that is killed after
// killAfter replacements.
func crash(t *testing.T, root, journal string, files []edit.File, killAfter int) {
	t.Helper()
	spec, err := json.Marshal(crashSpec{Root: root, Journal: journal, Files: files, KillAfter: killAfter})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+string(spec))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 3 || ee.ExitCode() == 0 {
		t.Fatalf("the writer was not killed: %v\n%s", err, out)
	}
}

// journalFixture is a root with a.go, b.go hard-linked as b2.go, and
// z.go, and the change that edits a.go, b.go and z.go and creates n.go,
// in that order; b.go is written in place for its link.
func journalFixture(t *testing.T) (root, journal string, orig map[string]string, files []edit.File) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	journal = filepath.Join(t.TempDir(), "journal")
	orig = map[string]string{
		"a.go": "package a\n\nvar A = 1\n",
		"b.go": "package a\n\nvar B = 1\n",
		"z.go": "package a\n\nvar Z = 1\n",
	}
	for name, text := range orig {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "b.go"), filepath.Join(root, "b2.go")); err != nil {
		t.Fatal(err)
	}
	orig["b2.go"] = orig["b.go"]
	file := func(name string) edit.File {
		return edit.File{Path: filepath.Join(root, name), Name: name, Sum: sha256.Sum256([]byte(orig[name])),
			After: strings.Replace(orig[name], "= 1", "= 2", 1)}
	}
	files = []edit.File{file("a.go"), file("b.go"),
		{Path: filepath.Join(root, "n.go"), Name: "n.go", Created: true, After: "package a\n"}, file("z.go")}
	return root, journal, orig, files
}

// snapshot is every file of dir (temporary files included) by name.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(data)
	}
	return got
}

func temps(files map[string]string) int {
	n := 0
	for name := range files {
		if strings.Contains(name, ".goplsmcp-") {
			n++
		}
	}
	return n
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestRecoverAfterCrash kills a writer before any replacement, after
// each, and after the last (before the journal is removed), then runs
// the recovery of the next start: every file is as it was, the created
// file is gone, the hard link still names the same file, and no
// temporary file or journal is left.
func TestRecoverAfterCrash(t *testing.T) {
	for k := range 5 {
		t.Run(fmt.Sprintf("after %d", k), func(t *testing.T) {
			root, journal, orig, files := journalFixture(t)
			crash(t, root, journal, files, k)
			crashed := snapshot(t, root)
			if len(snapshot(t, journal)) != 1 {
				t.Fatalf("journals after the crash: %v", snapshot(t, journal))
			}
			rec, err := edit.Recover(journal, root, discard())
			if err != nil {
				t.Fatal(err)
			}
			if rec.Journals != 1 || len(rec.PutBack) != k || rec.Temps != temps(crashed) || len(rec.Left) != 0 {
				t.Errorf("Recover = %+v; want 1 journal, %d files put back, %d temporary files removed, none left", rec, k, temps(crashed))
			}
			if diff := cmp.Diff(orig, snapshot(t, root)); diff != "" {
				t.Errorf("files after the recovery (-want +got):\n%s", diff)
			}
			if j := snapshot(t, journal); len(j) != 0 {
				t.Errorf("journals left: %v", j)
			}
			fb, _ := os.Stat(filepath.Join(root, "b.go"))
			fb2, _ := os.Stat(filepath.Join(root, "b2.go"))
			if !os.SameFile(fb, fb2) {
				t.Error("b.go and b2.go are no longer one file")
			}
		})
	}
}

// TestRecoverLeavesChangedFile: after a crash past the first two files,
// the user edits a.go (written by the crashed apply) and deletes the
// temporary file of z.go; the recovery leaves a.go as the user made it,
// names it, and rolls back the rest.
func TestRecoverLeavesChangedFile(t *testing.T) {
	root, journal, orig, files := journalFixture(t)
	crash(t, root, journal, files, 2)
	const mine = "package a\n\nvar A = 3 // mine\n"
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := edit.Recover(journal, root, discard())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(root, "a.go")}, rec.Left); diff != "" {
		t.Errorf("files left (-want +got):\n%s", diff)
	}
	want := withFile(orig, "a.go", mine)
	if diff := cmp.Diff(want, snapshot(t, root)); diff != "" {
		t.Errorf("files after the recovery (-want +got):\n%s", diff)
	}
	if j := snapshot(t, journal); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

// withFile is m with name set to text.
func withFile(m map[string]string, name, text string) map[string]string {
	out := map[string]string{name: text}
	for k, v := range m {
		if k != name {
			out[k] = v
		}
	}
	return out
}

// TestRecoverSkipsLiveJournal: a goplsmcp starting on the root while
// another writes leaves that write's journal and files alone, and the
// write completes and removes its journal.
func TestRecoverSkipsLiveJournal(t *testing.T) {
	root, journal, orig, files := journalFixture(t)
	var rec edit.Recovered
	var recErr error
	var during map[string]string
	w := &edit.Writer{Gate: place.New(root, nil), Journal: journal, Replaced: func(n int) {
		if n == 2 {
			during = snapshot(t, root)
			rec, recErr = edit.Recover(journal, root, discard())
		}
	}}
	if _, err := w.Write(files); err != nil {
		t.Fatal(err)
	}
	if recErr != nil || rec.Journals != 0 {
		t.Errorf("Recover during the write = %+v, %v; want nothing done", rec, recErr)
	}
	want := map[string]string{"n.go": "package a\n"}
	for name, text := range orig {
		want[name] = strings.Replace(text, "= 1", "= 2", 1)
	}
	if diff := cmp.Diff(want, snapshot(t, root)); diff != "" {
		t.Errorf("files after the write (-want +got):\n%s", diff)
	}
	if temps(during) != 2 {
		t.Errorf("the recovery ran before the write's temporary files were all there: %v", slices.Sorted(maps.Keys(during)))
	}
	if j := snapshot(t, journal); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

// TestFailedRenameRestores: the rename of the last file fails (its
// temporary file is gone, as after an I/O error); the files written
// before it are put back, the error says nothing was written, and no
// temporary file or journal is left.
func TestFailedRenameRestores(t *testing.T) {
	root, journal, orig, files := journalFixture(t)
	w := &edit.Writer{Gate: place.New(root, nil), Journal: journal, Replaced: func(n int) {
		if n == 3 {
			tmps, _ := filepath.Glob(filepath.Join(root, ".z.go.goplsmcp-*"))
			for _, tmp := range tmps {
				os.Remove(tmp)
			}
		}
	}}
	written, err := w.Write(files)
	if err == nil || !strings.Contains(err.Error(), "writing z.go failed") || !strings.Contains(err.Error(), "nothing was written") || len(written) != 0 {
		t.Fatalf("Write = %v, %v; want z.go's failure, and nothing left written", written, err)
	}
	if diff := cmp.Diff(orig, snapshot(t, root)); diff != "" {
		t.Errorf("files after the failed write (-want +got):\n%s", diff)
	}
	if j := snapshot(t, journal); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}
