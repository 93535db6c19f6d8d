package bridge

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReplayState(t *testing.T) {
	for _, tc := range []struct {
		tool, args string
		key        string
		replay     string
		forget     bool
	}{
		{"go_diagnostics", `{"file":"a/b.go","text":"package b"}`, "file:a/b.go", `{"file":"a/b.go","text":"package b"}`, false},
		// apply is never given again: the text is, without writing.
		{"go_rename_symbol", `{"file":"./a/b.go","text":"package b","symbol":"X","newName":"Y","apply":true}`, "file:a/b.go", `{"file":"./a/b.go","newName":"Y","symbol":"X","text":"package b"}`, false},
		// The file alone means the file on disk: its text is forgotten.
		{"go_describe", `{"file":"a/b.go","symbol":"X"}`, "file:a/b.go", "", true},
		{"go_close", `{"file":"a/b.go"}`, "file:a/b.go", "", true},
		// A snippet, or no file: nothing to keep.
		{"go_diagnostics", `{"text":"package scratch"}`, "", "", false},
		{"go_workspace", `{}`, "", "", false},
	} {
		key, replay, forget := ReplayState(tc.tool, json.RawMessage(tc.args))
		if diff := cmp.Diff(tc.key+" "+tc.replay, key+" "+string(replay)); diff != "" || forget != tc.forget {
			t.Errorf("ReplayState(%s, %s): forget %v, want %v (-want +got):\n%s", tc.tool, tc.args, forget, tc.forget, diff)
		}
	}
}

// TestUnrepeatable: only a call that says apply: true is never sent
// again, whatever the tool.
func TestUnrepeatable(t *testing.T) {
	for _, tc := range []struct {
		tool, args string
		want       bool
	}{
		{"go_rename_symbol", `{"file":"a.go","symbol":"X","new_name":"Y","apply":true}`, true},
		{"go_format", `{"file":"a.go","apply":true}`, true},
		{"go_rename_symbol", `{"file":"a.go","symbol":"X","new_name":"Y"}`, false},
		{"go_rename_symbol", `{"file":"a.go","symbol":"X","new_name":"Y","apply":false}`, false},
		{"go_workspace", `{}`, false},
	} {
		if got := Unrepeatable(tc.tool, json.RawMessage(tc.args)); (got != "") != tc.want {
			t.Errorf("Unrepeatable(%s, %s) = %q, want an answer: %v", tc.tool, tc.args, got, tc.want)
		}
	}
}
