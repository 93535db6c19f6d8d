package place_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"go.lsp.dev/protocol"
)

// TestUTF16: columns count UTF-16 code units (a rune outside the BMP is
// two), byte offsets count bytes, and positions past a line's end or the
// text's end are clamped.
func TestUTF16(t *testing.T) {
	line := "a é𝄞 := x" // é is 2 bytes and 1 unit, 𝄞 4 bytes and 2 units
	if got := place.UTF16Len(line); got != 10 {
		t.Errorf("UTF16Len = %d, want 10", got)
	}
	if got := place.ByteOffset(line, 5); got != 8 {
		t.Errorf("ByteOffset(5) = %d, want 8 (after 𝄞)", got)
	}
	if got := place.UTF16Col(line, 8); got != 5 {
		t.Errorf("UTF16Col(8) = %d, want 5", got)
	}
	if got := place.IdentColumns("x := x + xx // x", "x"); !cmp.Equal(got, []int{0, 5}) {
		t.Errorf("IdentColumns = %v, want [0 5]", got)
	}
	idx := place.NewLineIndex("ab\r\ncd\n")
	var got []int
	for _, p := range []protocol.Position{{Line: 0, Character: 1}, {Line: 0, Character: 9}, {Line: 1, Character: 2}, {Line: 5}} {
		got = append(got, idx.Offset(p))
	}
	if diff := cmp.Diff([]int{1, 2, 6, 7}, got); diff != "" {
		t.Errorf("Offset (-want +got):\n%s", diff)
	}
}
