package edit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// setRoot is a root holding a.go, and a source that sees no buffers and
// no foreign snippets.
func setRoot(t *testing.T) (root string, src edit.Source) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nvar X = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, edit.Source{
		Gate:     place.New(root, nil),
		Foreign:  func(string) bool { return false },
		Document: func(string) (string, int32, bool) { return "", 0, false },
	}
}

// TestSetFromDiffWrite follows a workspace edit from gopls's JSON to the
// disk: an edit to a file on disk and the creation of another are
// counted, shown as a diff with paths relative to the root, and written.
func TestSetFromDiffWrite(t *testing.T) {
	root, src := setRoot(t)
	a, b := lspclient.FileURI(filepath.Join(root, "a.go")), lspclient.FileURI(filepath.Join(root, "b.go"))
	var we edit.WorkspaceEdit
	raw := `{"documentChanges":[{"kind":"create","uri":"` + b + `"},` +
		`{"textDocument":{"uri":"` + a + `","version":null},"edits":[{"range":{"start":{"line":2,"character":4},"end":{"line":2,"character":5}},"newText":"Y"}]}]}`
	if err := json.Unmarshal([]byte(raw), &we); err != nil {
		t.Fatal(err)
	}
	if !we.NonEmpty() {
		t.Fatal("NonEmpty() = false for an edit that changes a file")
	}
	es, err := edit.From(&we, edit.Asked{}, src)
	if err != nil {
		t.Fatal(err)
	}
	edits, files, diff, err := es.Diff()
	if err != nil {
		t.Fatal(err)
	}
	if edits != 2 || files != 2 {
		t.Errorf("Diff() counts %d edits in %d files, want 2 in 2", edits, files)
	}
	// An empty new file shows in the counts only: its diff is empty.
	for _, want := range []string{"--- a/a.go\n+++ b/a.go\n", "-var X = 1\n+var Y = 1\n"} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff lacks %q:\n%s", want, diff)
		}
	}
	var told map[string]bool
	if err := es.Write(&edit.Writer{Gate: src.Gate}, func(w map[string]bool) { told = w }); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "a.go"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("package a\n\nvar Y = 1\n", string(got)); diff != "" {
		t.Errorf("a.go after the write (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{filepath.Join(root, "a.go"): false, filepath.Join(root, "b.go"): true}, told); diff != "" {
		t.Errorf("the files written, as tell was given them (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(root, "b.go")); err != nil {
		t.Errorf("b.go was not created: %v", err)
	}
}

// TestSetFromRefuses checks what From refuses: a file outside the root,
// a file saved since gopls was asked (an hour ago), an operation goplsmcp does not
// propose; and what it leaves out: another session's snippet.
func TestSetFromRefuses(t *testing.T) {
	root, src := setRoot(t)
	a := lspclient.FileURI(filepath.Join(root, "a.go"))
	change := func(uri string) *edit.WorkspaceEdit {
		return &edit.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{uri: {{NewText: "// x\n"}}}}
	}
	outside := lspclient.FileURI(filepath.Join(filepath.Dir(root), "elsewhere.go"))
	if _, err := edit.From(change(outside), edit.Asked{}, src); err == nil || !strings.Contains(err.Error(), "outside the workspace root") {
		t.Errorf("an edit outside the root: err = %v, want one saying it is outside the workspace root", err)
	}
	if _, err := edit.From(change(a), edit.AskedAt(time.Now().Add(-time.Hour), 0), src); err == nil || !strings.Contains(err.Error(), "changed on disk while gopls computed the edits") {
		t.Errorf("a file saved after asked: err = %v, want one saying it changed on disk", err)
	}
	del := &edit.WorkspaceEdit{DocumentChanges: []json.RawMessage{json.RawMessage(`{"kind":"delete","uri":"` + a + `"}`)}}
	if _, err := edit.From(del, edit.Asked{}, src); err == nil || !strings.Contains(err.Error(), "would delete a file") {
		t.Errorf("a deletion: err = %v, want one saying it would delete a file", err)
	}
	src.Foreign = func(uri string) bool { return uri == a }
	es, err := edit.From(change(a), edit.Asked{}, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(es.Files) != 0 {
		t.Errorf("an edit to another session's snippet was kept: %d files", len(es.Files))
	}
}

// TestSetFromSavedJustAfterAsked checks how From tells a save made right
// after gopls was asked from one before: a file's time may lie a clock
// tick (a time kept to the second: two seconds) before the write that set
// it, so by its time alone a file written that close before asked is
// refused;
// where the watcher sees every change (Changed known), its word decides,
// whatever the time says.
func TestSetFromSavedJustAfterAsked(t *testing.T) {
	root, src := setRoot(t)
	path := filepath.Join(root, "a.go")
	a := lspclient.FileURI(path)
	change := &edit.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{a: {{NewText: "// x\n"}}}}
	// The file's time says 1 ms before asked, as the coarse clock may.
	asked := time.Now()
	if err := os.Chtimes(path, asked.Add(-time.Millisecond), asked.Add(-time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	const refused = "changed on disk while gopls computed the edits"
	if _, err := edit.From(change, edit.AskedAt(asked, 7), src); err == nil || !strings.Contains(err.Error(), refused) {
		t.Errorf("by its time alone, a file written 1 ms before asked: err = %v, want it refused", err)
	}
	// A fine time a second before asked: the clock's tick is all the
	// slack such a time needs.
	fine := asked.Add(-time.Second).Add(time.Microsecond)
	if err := os.Chtimes(path, fine, fine); err != nil {
		t.Fatal(err)
	}
	if _, err := edit.From(change, edit.AskedAt(asked, 7), src); err != nil {
		t.Errorf("by its time alone, a file written a second before asked: err = %v", err)
	}
	// A whole second, as FAT keeps times, a second before asked: it may
	// be a write made after.
	whole := asked.Truncate(time.Second).Add(-time.Second)
	if err := os.Chtimes(path, whole, whole); err != nil {
		t.Fatal(err)
	}
	if _, err := edit.From(change, edit.AskedAt(asked, 7), src); err == nil || !strings.Contains(err.Error(), refused) {
		t.Errorf("by its time alone, a whole-second time a second before asked: err = %v, want it refused", err)
	}
	var since uint64
	watcher := func(changed bool) func(string, uint64) (bool, bool) {
		return func(p string, s uint64) (bool, bool) {
			since = s
			return changed && p == path, true
		}
	}
	src.Changed = watcher(false)
	if _, err := edit.From(change, edit.AskedAt(asked, 7), src); err != nil {
		t.Errorf("the watcher saw no change since: err = %v", err)
	}
	if since != 7 {
		t.Errorf("Changed was asked since epoch %d, want the mark's 7", since)
	}
	// A change the watcher saw, with a time set back an hour.
	old := asked.Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	src.Changed = watcher(true)
	if _, err := edit.From(change, edit.AskedAt(asked, 7), src); err == nil || !strings.Contains(err.Error(), refused) {
		t.Errorf("a change the watcher saw, its time an hour old: err = %v, want it refused", err)
	}
}
