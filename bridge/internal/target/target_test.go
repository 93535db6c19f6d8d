package target

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
)

// TestSnap checks that a position is moved onto the name it anchors, the
// nearest occurrence first, and refused when the name is too far.
func TestSnap(t *testing.T) {
	src := &buffer.Source{Lines: []string{
		"package p",           // 0
		"",                    // 1
		"func Run(n int) {",   // 2
		"\tx := n + n",        // 3
		"\t_ = x",             // 4
		"}",                   // 5
		"",                    // 6
		"",                    // 7
		"var s = \"𝔸\" + Run", // 8
	}}
	type pos struct {
		Line, Character int
		Note            string
	}
	for _, c := range []struct {
		name      string
		line, col int
		want      pos
		wantErr   string
	}{
		{name: "n", line: 3, col: 6, want: pos{3, 6, ""}},
		{name: "n", line: 3, col: 7, want: pos{3, 6, ""}}, // just after it
		{name: "n", line: 3, col: 10, want: pos{3, 10, ""}},
		{name: "n", line: 3, col: 9, want: pos{3, 10, "position moved from 3:9 to 3:10, where n is"}},
		{name: "x", line: 5, col: 0, want: pos{4, 5, "position moved from 5:0 to 4:5, where x is"}},
		{name: "Run", line: 4, col: 0, want: pos{2, 5, "position moved from 4:0 to 2:5, where Run is"}},
		// UTF-16 columns: 𝔸 is two units, four bytes.
		{name: "Run", line: 7, col: 0, want: pos{8, 15, "position moved from 7:0 to 8:15, where Run is"}},
		{name: "Run", line: 5, col: 0, wantErr: `"Run" is not on line 5`},
		{name: "n", line: -1, col: 0, wantErr: "must not be negative"},
	} {
		tg := &Target{Src: src, Line: c.line, Character: c.col}
		err := tg.snap(c.name)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("snap(%q) at %d:%d: error %v, want one containing %q", c.name, c.line, c.col, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("snap(%q) at %d:%d: %v", c.name, c.line, c.col, err)
			continue
		}
		if diff := cmp.Diff(c.want, pos{tg.Line, tg.Character, tg.Note}); diff != "" {
			t.Errorf("snap(%q) at %d:%d (-want +got):\n%s", c.name, c.line, c.col, diff)
		}
	}
}

// TestResolveArguments checks that an At that cannot name a place is
// refused, saying which fields to send, before anything is opened.
func TestResolveArguments(t *testing.T) {
	n := 1
	file := buffer.Doc{File: "main.go"}
	for _, c := range []struct {
		at   At
		want string
	}{
		{At{Doc: file, Line: &n, Character: &n, Symbol: "F"}, "pass either line and character, or symbol, not both"},
		{At{}, "say where: pass file with line and character (0-based), or symbol (with file for its scope, or alone to search the workspace)"},
		{At{Doc: file}, "pass line and character (0-based), or symbol, to say where in the file"},
		{At{Doc: file, Line: &n}, "line and character go together; pass both (0-based)"},
		{At{Line: &n, Character: &n}, "line and character need file (or uri, or text) to say which file they are in"},
		{At{Doc: file, Symbol: "F", Name: "F"}, "name anchors line and character; with symbol, leave it out"},
	} {
		// A zero Resolver: these are refused before it is used.
		_, err := (&Resolver{}).Resolve(t.Context(), buffer.Caller{}, c.at)
		if err == nil || err.Error() != c.want {
			t.Errorf("Resolve(%+v) = %v, want %q", c.at, err, c.want)
		}
	}
}
