package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// argsIn has a field of each shape the tools use.
type argsIn struct {
	File  string   `json:"file,omitempty"`
	Line  *int     `json:"line,omitempty"`
	Files []string `json:"files,omitempty"`
	Flag  bool     `json:"flag,omitempty"`
}

// TestArgumentProblems checks the sentence for each kind of bad argument,
// and that what the client sent is never echoed at length: a wrong value
// is not echoed at all, an unknown argument's name is cut to 40
// characters with control characters replaced.
func TestArgumentProblems(t *testing.T) {
	s := NewServer("test", "v0", nil)
	err := AddTool(s, Tool{Name: "t", Title: "T", Description: "A tool.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *argsIn) (*echoOut, error) { return &echoOut{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	tool := s.tool("t")
	long := strings.Repeat("x", 5000)
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	tests := []struct{ args, want string }{
		{`{"line":"abc"}`, "invalid arguments: line must be an integer, not a string"},
		{`{"line":"` + long + `"}`, "invalid arguments: line must be an integer, not a string"},
		{`{"line":{"k":1}}`, "invalid arguments: line must be an integer, not an object"},
		{`{"line":1.5}`, "invalid arguments: line must be an integer, not a number"},
		{`{"line":` + deep + `}`, "invalid arguments: line must be an integer, not an array"},
		{`{"file":null}`, "invalid arguments: file must be a string, not null"},
		{`{"files":[1,2]}`, "invalid arguments: files[] must be a string, not an integer"},
		{`{"files":"x"}`, "invalid arguments: files must be an array, not a string"},
		{`{"flag":"yes"}`, "invalid arguments: flag must be a boolean, not a string"},
		{`{"line":1e400}`, "invalid arguments: a number is out of range"},
		{`{"zzz":1,"yyy":2}`, `invalid arguments: unknown arguments ["yyy" "zzz"]; the tool takes file, files, flag, line`},
		{`{"a":1,"b":1,"c":1,"d":1,"e":1}`, `invalid arguments: unknown arguments ["a" "b" "c" and 2 more]; the tool takes file, files, flag, line`},
		{`{"` + long + `":1}`, `invalid arguments: unknown arguments ["` + strings.Repeat("x", 40) + `…"]; the tool takes file, files, flag, line`},
		{`{"a\u0000\n\u001b[31m":1}`, `invalid arguments: unknown arguments ["a␀␊␛[31m"]; the tool takes file, files, flag, line`},
	}
	for _, tt := range tests {
		err := tool.validate(json.RawMessage(tt.args))
		if err == nil {
			t.Errorf("%.60s: accepted", tt.args)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("%.60s (-want +got):\n%s", tt.args, diff)
		}
		if n := utf8.RuneCountInString(err.Error()); n > 200 {
			t.Errorf("%.60s: message of %d characters", tt.args, n)
		}
	}
}

// TestDecodeProblems checks what the schema lets through but Go cannot
// hold: numbers out of range for an int.
func TestDecodeProblems(t *testing.T) {
	s := NewServer("test", "v0", nil)
	err := AddTool(s, Tool{Name: "t", Title: "T", Description: "A tool.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *argsIn) (*echoOut, error) { return &echoOut{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	tool := s.tool("t")
	for _, tt := range []struct{ args, want string }{
		{`{"line":1e30}`, "invalid arguments: line must be an integer in range, not number 1e30"},
		{`{"line":` + strings.Repeat("9", 30) + `}`, "invalid arguments: line must be an integer in range, not number " + strings.Repeat("9", 30)},
		{`{"line":` + strings.Repeat("9", 60) + `}`, "invalid arguments: line must be an integer in range, not number " + strings.Repeat("9", 33) + "…"},
	} {
		if err := tool.validate(json.RawMessage(tt.args)); err != nil {
			t.Errorf("%.60s: the schema refused it (%v); the decoder was to", tt.args, err)
			continue
		}
		_, err := tool.decode(json.RawMessage(tt.args))
		if err == nil {
			t.Errorf("%.60s: accepted", tt.args)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("%.60s (-want +got):\n%s", tt.args, diff)
		}
	}
}
