package target

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// TestSnap checks that a position (1-based, byte column) is moved onto
// the name it anchors, the nearest occurrence first, and refused when the
// name is too far; the target is held as gopls takes it (0-based, UTF-16)
// and the note says both places as go vet would.
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
		{name: "n", line: 4, col: 7, want: pos{3, 6, ""}},
		{name: "n", line: 4, col: 8, want: pos{3, 6, ""}}, // just after it
		{name: "n", line: 4, col: 11, want: pos{3, 10, ""}},
		{name: "n", line: 4, col: 10, want: pos{3, 10, "position moved from 4:10 to 4:11, where n is"}},
		{name: "x", line: 6, col: 1, want: pos{4, 5, "position moved from 6:1 to 5:6, where x is"}},
		{name: "Run", line: 5, col: 1, want: pos{2, 5, "position moved from 5:1 to 3:6, where Run is"}},
		// 𝔸 is two UTF-16 units and four bytes: gopls's column 15 is
		// go vet's 18.
		{name: "Run", line: 8, col: 1, want: pos{8, 15, "position moved from 8:1 to 9:18, where Run is"}},
		{name: "Run", line: 6, col: 1, wantErr: `"Run" is not on line 6`},
		{name: "n", line: 0, col: 1, wantErr: "must be at least 1"},
	} {
		tg := &Target{Src: src}
		err := tg.snap(place.Pos{Line: c.line, Column: c.col}, c.name)
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
		{At{Doc: file, Line: &n, Column: &n, Symbol: "F"}, "pass either line and column, or symbol, not both"},
		{At{}, "say where: pass file with line and column (1-based, as go vet prints them), or symbol (with file for its scope, or alone to search the workspace)"},
		{At{Doc: file}, "pass line and column (1-based, as go vet prints them), or symbol, to say where in the file"},
		{At{Doc: file, Line: &n}, "line and column go together; pass both (1-based, as go vet prints them)"},
		{At{Line: &n, Column: &n}, "line and column need file (or uri, or text) to say which file they are in"},
		{At{Doc: file, Symbol: "F", Name: "F"}, "name anchors line and column; with symbol, leave it out"},
	} {
		// A zero Resolver: these are refused before it is used.
		_, err := (&Resolver{}).Resolve(t.Context(), buffer.Caller{}, c.at)
		if err == nil || err.Error() != c.want {
			t.Errorf("Resolve(%+v) = %v, want %q", c.at, err, c.want)
		}
	}
}
