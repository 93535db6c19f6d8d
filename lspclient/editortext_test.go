package lspclient

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplyChanges(t *testing.T) {
	for _, tc := range []struct {
		name, text, changes, want string
	}{
		{"whole text", "a\nb\n", `[{"text":"c\n"}]`, "c\n"},
		{"insert at the end", "a\nb\n", `[{"range":{"start":{"line":2,"character":0},"end":{"line":2,"character":0}},"text":"c\n"}]`, "a\nb\nc\n"},
		{"replace across lines", "abc\ndef\n", `[{"range":{"start":{"line":0,"character":1},"end":{"line":1,"character":2}},"text":"X"}]`, "aXf\n"},
		// 𝔸 is two UTF-16 code units, é one: positions count units.
		{"utf-16 units", "𝔸é=1\n", `[{"range":{"start":{"line":0,"character":3},"end":{"line":0,"character":4}},"text":":="}]`, "𝔸é:=1\n"},
		{"past the line's end", "ab\ncd\n", `[{"range":{"start":{"line":0,"character":9},"end":{"line":1,"character":0}},"text":""}]`, "abcd\n"},
		{"in order", "a\n", `[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":1}},"text":"b"},{"range":{"start":{"line":0,"character":2},"end":{"line":0,"character":2}},"text":"c"}]`, "abc\n"},
	} {
		got, err := ApplyChanges(tc.text, []byte(tc.changes))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, err := ApplyChanges("a\n", []byte(`[{"range":{"start":{"line":5,"character":0},"end":{"line":5,"character":0}},"text":"x"}]`)); err == nil {
		t.Errorf("a change past the last line was applied")
	}
}
