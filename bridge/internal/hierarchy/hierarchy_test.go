package hierarchy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

func TestDepth(t *testing.T) {
	for _, tc := range []struct {
		in, want int
		err      bool
	}{{0, 1, false}, {1, 1, false}, {3, 3, false}, {4, 0, true}, {-1, 0, true}} {
		got, err := Depth(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("Depth(%d) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestLines(t *testing.T) {
	nodes := []Node{
		{Name: "A", Kind: "func", File: "a.go", At: place.Pos{Line: 3, Column: 5}, Text: "func A() {", Depth: 1,
			Sites: []Site{{File: "a.go", At: place.Pos{Line: 4, Column: 1}, Text: "B()"}, {File: "a.go", At: place.Pos{Line: 6, Column: 1}, Text: "B()"}}},
		{Name: "T", Kind: "struct", File: "t.go", At: place.Pos{Line: 1, Column: 5}, Text: "type T struct{}", Depth: 2},
		{Name: "A", Kind: "func", File: "a.go", At: place.Pos{Line: 3, Column: 5}, Text: "func A() {", Depth: 2, Repeated: true},
	}
	for _, tc := range []struct {
		bySite bool
		want   []string
	}{{false, []string{
		"A a.go:3:5: func A() {",
		"  t.go:1:5: type T struct{}",
		"  A a.go:3:5: func A() { (repeated, not expanded)",
	}}, {true, []string{
		"A a.go:4:1: B()",
		"A a.go:6:1: B()",
		"  t.go:1:5: type T struct{}",
		"  A a.go:3:5: func A() { (repeated, not expanded)",
	}}} {
		if diff := cmp.Diff(tc.want, Lines(nodes, tc.bySite)); diff != "" {
			t.Errorf("Lines(bySite=%v) (-want +got):\n%s", tc.bySite, diff)
		}
	}
	if diff := cmp.Diff([]string{}, Lines(nil, false)); diff != "" {
		t.Errorf("Lines(nil) (-want +got):\n%s", diff)
	}
}
