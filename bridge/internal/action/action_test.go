package action

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// TestPositionalCandidates checks the order in which diagnostics are
// asked for fixes that work on their range: type errors gopls is known to
// offer such fixes for, then other type errors, then the rest.
func TestPositionalCandidates(t *testing.T) {
	diags := []protocol.Diagnostic{
		{Source: "unusedvariable", Message: "declared and not used: x"},
		{Source: "compiler", Message: "x declared and not used"},
		{Source: "compiler", Message: "undefined: foo"},
		{Source: "compiler", Message: "T does not implement I (missing method M)"},
	}
	if diff := cmp.Diff([]int{2, 3, 1, 0}, positionalCandidates(diags)); diff != "" {
		t.Errorf("positionalCandidates (-want +got):\n%s", diff)
	}
}

// TestEditable checks which actions goplsmcp offers as edits: those with
// edits or that gopls computes on request, never disabled ones or those
// that only run a command.
func TestEditable(t *testing.T) {
	for _, tt := range []struct {
		json string
		want bool
	}{
		{`{"title":"lazy","data":{"x":1}}`, true},
		{`{"title":"given","edit":{"changes":{"file:///a.go":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"x"}]}}}`, true},
		{`{"title":"command","command":{"command":"gopls.doc"}}`, false},
		{`{"title":"disabled","data":{"x":1},"disabled":{"reason":"no"}}`, false},
	} {
		var a Action
		if err := json.Unmarshal([]byte(tt.json), &a); err != nil {
			t.Fatal(err)
		}
		if got := a.Editable(); got != tt.want {
			t.Errorf("Editable of %s = %v, want %v", a.Title, got, tt.want)
		}
	}
}
