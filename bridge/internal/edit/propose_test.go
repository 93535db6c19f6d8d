package edit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// proposer is a proposer over src's root that records what it was told
// it wrote.
func proposer(src edit.Source, allowWrite bool, resultBytes int, written *[]map[string]bool) *edit.Proposer {
	return &edit.Proposer{
		Gate:        src.Gate,
		Foreign:     func(context.Context, string) bool { return false },
		Document:    src.Document,
		Written:     func(w map[string]bool) { *written = append(*written, w) },
		AllowWrite:  allowWrite,
		ResultBytes: resultBytes,
	}
}

// renameX is a workspace edit of a.go renaming X to name.
func renameX(root, name string) *edit.WorkspaceEdit {
	uri := lspclient.FileURI(filepath.Join(root, "a.go"))
	return &edit.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{uri: {{
		Range:   protocol.Range{Start: protocol.Position{Line: 2, Character: 4}, End: protocol.Position{Line: 2, Character: 5}},
		NewText: name,
	}}}}
}

// TestProposerProposes checks that a proposal lists and diffs the edits
// and writes nothing, and that apply: true is refused without writes
// allowed.
func TestProposerProposes(t *testing.T) {
	root, src := setRoot(t)
	var written []map[string]bool
	p := proposer(src, false, 1<<20, &written)
	es, err := p.From(t.Context(), renameX(root, "Y"), edit.Asked{})
	if err != nil {
		t.Fatal(err)
	}
	// gopls's 2:4-2:5 (0-based) is go vet's 3:5-3:6.
	wantList := []edit.Edit{{File: "a.go", NewText: "Y", Range: place.Span{Start: place.Pos{Line: 3, Column: 5}, End: place.Pos{Line: 3, Column: 6}}}}
	if diff := cmp.Diff(wantList, p.List(es)); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if got, want := wantList[0].String(), `a.go:3:5-3:6 "Y"`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
	ch, err := p.Propose(edit.Write{}, es)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Applied == nil || *ch.Applied || ch.Edits != 1 || ch.Files != 1 {
		t.Errorf("Propose = %+v, want 1 edit in 1 file, not applied", ch)
	}
	if got := ch.Text("none"); !strings.HasPrefix(got, "not applied: 1 edit in 1 file\n--- a/a.go") {
		t.Errorf("Text = %q, want a line saying not applied, then the diff", got)
	}
	if _, err := p.Propose(edit.Write{Apply: true}, es); err == nil || !strings.Contains(err.Error(), "--allow-write") {
		t.Errorf("Propose with apply and writes disabled: got %v, want an error naming --allow-write", err)
	}
	if err := p.Check(edit.Write{Apply: true}); err == nil {
		t.Error("Check with apply and writes disabled: got nil, want an error")
	}
	if got := p.Note(); got != " Nothing is written." {
		t.Errorf("Note = %q, want that nothing is written", got)
	}
	if len(written) > 0 {
		t.Errorf("gopls was told of writes %v, want none", written)
	}
	var none edit.Changes
	if got := none.Text("nothing to change"); got != "nothing to change" {
		t.Errorf("Text of no changes = %q, want the text for nothing", got)
	}
}

// TestProposerApplies checks that apply: true with writes allowed writes
// the file, says so, tells gopls, and replaces a diff too large for the
// answer by the files it changes.
func TestProposerApplies(t *testing.T) {
	root, src := setRoot(t)
	var written []map[string]bool
	// A diff of some 1,300 bytes, over the quarter of the limit it may
	// take, where the summary that replaces it fits.
	name := strings.Repeat("Y", 600)
	p := proposer(src, true, 2000, &written)
	es, err := p.From(t.Context(), renameX(root, name), edit.Asked{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := p.Propose(edit.Write{Apply: true}, es)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Applied == nil || !*ch.Applied {
		t.Errorf("Applied = %v, want true", ch.Applied)
	}
	if !strings.HasPrefix(ch.Diff, "(the diff, ") || !strings.Contains(ch.Diff, "files changed:\na.go\n") {
		t.Errorf("Diff = %q, want a summary naming a.go", ch.Diff)
	}
	data, err := os.ReadFile(filepath.Join(root, "a.go"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), "package a\n\nvar "+name+" = 1\n"; got != want {
		t.Errorf("a.go = %q, want %q", got, want)
	}
	// false: a.go was changed, not created.
	if diff := cmp.Diff([]map[string]bool{{filepath.Join(root, "a.go"): false}}, written); diff != "" {
		t.Errorf("files gopls was told of (-want +got):\n%s", diff)
	}
}
