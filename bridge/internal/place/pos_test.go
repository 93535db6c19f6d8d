package place_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"go.lsp.dev/protocol"
)

// TestPos: positions are written and read as go vet prints them, 1-based
// with byte columns, and converted to and from gopls's 0-based UTF-16
// positions through the text of their line.
func TestPos(t *testing.T) {
	p := place.Pos{Line: 8, Column: 30}
	s := place.Span{Start: p, End: place.Pos{Line: 8, Column: 33}}
	loc := place.Loc{File: "a.go", Pos: p}
	got := []string{
		p.String(), p.In("broken/broken.go"), p.Text("x := 1"), p.Text(""),
		s.String(), s.In("a.go"), loc.String(),
		place.Loc{File: "a.go", Pos: p, Text: "x"}.String(),
	}
	want := []string{
		"8:30", "broken/broken.go:8:30", "8:30: x := 1", "8:30",
		"8:30-8:33", "a.go:8:30-8:33", "a.go:8:30", "a.go:8:30: x",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("writing (-want +got):\n%s", diff)
	}

	if got, err := place.ParsePos("8:30"); err != nil || got != p {
		t.Errorf("ParsePos(8:30) = %v, %v; want %v", got, err, p)
	}
	if got, err := place.ParseSpan(s.String()); err != nil || got != s {
		t.Errorf("ParseSpan(%s) = %v, %v; want %v", s, got, err, s)
	}
	for _, bad := range []string{"", "8", "0:1", "1:0", "a:b", "8:30:1"} {
		if _, err := place.ParsePos(bad); err == nil {
			t.Errorf("ParsePos(%q) succeeded", bad)
		}
	}

	// é is 2 bytes and 1 UTF-16 unit, 𝄞 4 bytes and 2 units.
	line := "a é𝄞 := x"
	for _, c := range []struct {
		lsp protocol.Position
		pos place.Pos
	}{
		{protocol.Position{Line: 0, Character: 0}, place.Pos{Line: 1, Column: 1}},
		{protocol.Position{Line: 2, Character: 3}, place.Pos{Line: 3, Column: 5}},   // after é
		{protocol.Position{Line: 2, Character: 5}, place.Pos{Line: 3, Column: 9}},   // after 𝄞
		{protocol.Position{Line: 2, Character: 12}, place.Pos{Line: 3, Column: 16}}, // past the end
	} {
		if got := place.FromLSP(line, c.lsp); got != c.pos {
			t.Errorf("FromLSP(%v) = %v, want %v", c.lsp, got, c.pos)
		}
		if got := c.pos.LSP(line); got != c.lsp {
			t.Errorf("%v.LSP() = %v, want %v", c.pos, got, c.lsp)
		}
	}
	// A line whose text is not known counts units as bytes.
	if got := place.FromLSP("", protocol.Position{Line: 4, Character: 7}); got != (place.Pos{Line: 5, Column: 8}) {
		t.Errorf("FromLSP without text = %v, want 5:8", got)
	}

	lines := []string{"package p", "", "var x = 1"}
	for _, c := range []struct {
		pos  place.Pos
		want string
	}{
		{place.Pos{Line: 1, Column: 1}, ""},
		{place.Pos{Line: 2, Column: 1}, ""},
		{place.Pos{Line: 3, Column: 10}, ""},
		{place.Pos{Line: 3, Column: 11}, "column 11 is past the end of line 3, which has 9 bytes (columns 1 to 10)"},
		{place.Pos{Line: 4, Column: 1}, "line 4 is past the end of the file, which has lines 1 to 3"},
		{place.Pos{Line: 0, Column: 1}, place.ErrNotPositive.Error()},
	} {
		err := c.pos.Check(lines)
		if got := errString(err); got != c.want {
			t.Errorf("Check(%v) = %q, want %q", c.pos, got, c.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
