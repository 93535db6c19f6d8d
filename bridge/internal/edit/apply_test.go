package edit_test

import (
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"go.lsp.dev/protocol"
)

func textEdit(l1, c1, l2, c2 uint32, text string) protocol.TextEdit {
	return protocol.TextEdit{Range: protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}, NewText: text}
}

// TestApply: edits given in any order are made in the order of their
// starts, in UTF-16 columns; overlapping edits are refused.
func TestApply(t *testing.T) {
	before := "var é = 1\nvar b = 2\n"
	got, err := edit.Apply(before, []protocol.TextEdit{textEdit(1, 4, 1, 5, "c"), textEdit(0, 4, 0, 5, "a")})
	if want := "var a = 1\nvar c = 2\n"; err != nil || got != want {
		t.Errorf("Apply = %q, %v; want %q", got, err, want)
	}
	if _, err := edit.Apply(before, []protocol.TextEdit{textEdit(0, 0, 0, 6, "x"), textEdit(0, 2, 0, 3, "y")}); err == nil {
		t.Error("Apply of overlapping edits succeeded")
	}
}
