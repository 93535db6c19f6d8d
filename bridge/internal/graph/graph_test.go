package graph

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestImportersName(t *testing.T) {
	var got []string
	for d := range 3 {
		got = append(got, ImportersName(d))
	}
	want := []string{"importers", "importers at depth 2", "importers at depth 3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ImportersName (-want +got):\n%s", diff)
	}
}

// TestWalkPathOf names a workspace package by its directory without
// asking anyone: the walk's workspace answers first.
func TestWalkPathOf(t *testing.T) {
	g := &Graph{}
	w := g.Walk(context.Background(), map[string]string{"example.com/m/a": "/ws/a", "example.com/m": "/ws"})
	for dir, want := range map[string]string{"/ws/a": "example.com/m/a", "/ws": "example.com/m"} {
		if got := w.PathOf(dir); got != want {
			t.Errorf("PathOf(%q) = %q, want %q", dir, got, want)
		}
	}
	dir, err := g.PackageDir(context.Background(), "example.com/m/a", w.workspace)
	if err != nil || dir != "/ws/a" {
		t.Errorf("PackageDir(example.com/m/a) = %q, %v; want /ws/a", dir, err)
	}
}
