package render_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
)

// TestPlaceList: places are listed by file in the order files first come,
// up to the limit; the rest are counted by file, and the text says both.
func TestPlaceList(t *testing.T) {
	l := render.NewPlaceList(3)
	for _, p := range []struct {
		file       string
		line, char int
		text       string
	}{{"b.go", 1, 2, "x := 1"}, {"a.go", 3, 0, ""}, {"b.go", 4, 1, "y"}, {"a.go", 9, 9, "z"}, {"c.go", 0, 0, "w"}} {
		l.Add(p.file, func() string { return place.Pos{Line: p.line, Column: p.char}.Text(p.text) })
	}
	if !l.Truncated() {
		t.Error("Truncated() = false with 5 places and a limit of 3")
	}
	var b strings.Builder
	render.WritePlaces(&b, &l.Files, &l.More)
	want := "b.go\n1:2: x := 1\n4:1: y\na.go\n3:0\na.go: 1 more\nc.go: 1 more\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WritePlaces (-want +got):\n%s", diff)
	}
	if got := render.FilesIn(&l.Files, &l.More); got != 3 {
		t.Errorf("FilesIn = %d, want 3", got)
	}
}

// TestQuote: an echoed client string is clipped to EchoChars characters
// and has its control characters replaced.
func TestQuote(t *testing.T) {
	long := strings.Repeat("é", render.EchoChars+5)
	for in, want := range map[string]string{
		"a\x00b\u0085c": `"a␀b\\u0085c"`,
		long:            `"` + strings.Repeat("é", render.EchoChars) + `…"`,
	} {
		if got := render.Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := render.Plural(1, "file") + ", " + render.Plural(2, "file"); got != "1 file, 2 files" {
		t.Errorf("Plural = %q", got)
	}
}

// TestSymbolKind: symbol kinds are named in Go's words, or by number past
// LSP's.
func TestSymbolKind(t *testing.T) {
	got := []string{
		render.SymbolKind(12), render.SymbolKind(26), render.SymbolKind(0), render.SymbolKind(27),
	}
	want := []string{"func", "type parameter", "kind 0", "kind 27"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
