package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNotesInto checks that a call's notes join its structured result's
// notes member, the rest left byte for byte: a list of its own gets them
// at its end, an output without one gets one.
func TestNotesInto(t *testing.T) {
	for _, tc := range []struct{ obj, want string }{
		{`{}`, `{"notes":["n1","n2"]}`},
		{`{"a":1,"b":{"notes":3}}`, `{"a":1,"b":{"notes":3},"notes":["n1","n2"]}`},
		{`{"notes":["own"],"z":[1, 2]}`, `{"notes":["own","n1","n2"],"z":[1, 2]}`},
		{`{"s":"\"notes\":[]","notes":[]}`, `{"s":"\"notes\":[]","notes":["n1","n2"]}`},
	} {
		got, err := notesInto([]byte(tc.obj), []string{"n1", "n2"})
		if err != nil {
			t.Errorf("notesInto(%s): %v", tc.obj, err)
			continue
		}
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("notesInto(%s) (-want +got):\n%s", tc.obj, diff)
		}
	}
	for _, bad := range []string{`[]`, `{"notes":"one"}`, `{"notes":[1]}`} {
		if got, err := notesInto([]byte(bad), []string{"n"}); err == nil {
			t.Errorf("notesInto(%s) = %s, want an error", bad, got)
		}
	}
}

// TestAddNote checks that a note a handler adds reaches both channels:
// the text's last line and the structured content's notes.
func TestAddNote(t *testing.T) {
	s := testServer(t, nil)
	err := AddTool(s, Tool{Name: "noted", Title: "Noted", Description: "Adds a note.", Annotations: readOnlyHints()},
		func(ctx context.Context, _ *struct{}) (*echoOut, error) {
			AddNote(ctx, "seen as the editor holds it")
			return &echoOut{Echo: "done"}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	ps := startSession(t, s)
	ps.initialize("2025-11-25")
	ps.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"noted","arguments":{}}}`)
	res, ok := ps.recv()["result"].(map[string]any)
	if !ok {
		t.Fatal("no result")
	}
	if text := res["content"].([]any)[0].(map[string]any)["text"]; text != "echo: done\nseen as the editor holds it" {
		t.Errorf("text %q, want the note as its last line", text)
	}
	got, _ := json.Marshal(res["structuredContent"])
	if diff := cmp.Diff(`{"echo":"done","notes":["seen as the editor holds it"]}`, string(got)); diff != "" {
		t.Errorf("structuredContent (-want +got):\n%s", diff)
	}
}
