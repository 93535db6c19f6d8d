package buffer_test

import (
	"fmt"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
)

// TestSnippets: past MaxSnippets the oldest snippet is evicted; a
// forgotten one is no longer held.
func TestSnippets(t *testing.T) {
	var s buffer.Snippets
	uri := func(i int) string { return fmt.Sprintf("file:///w/.goplsmcp/scratch/%d/snippet.go", i) }
	for i := range buffer.MaxSnippets {
		if evict := s.Add(uri(i)); evict != "" {
			t.Fatalf("Add #%d evicted %s below the bound", i, evict)
		}
	}
	if evict := s.Add(uri(buffer.MaxSnippets)); evict != uri(0) {
		t.Errorf("Add past the bound evicted %q, want the oldest %q", evict, uri(0))
	}
	if s.Has(uri(0)) || !s.Has(uri(1)) {
		t.Errorf("Has(oldest) = %v, Has(next) = %v; want false, true", s.Has(uri(0)), s.Has(uri(1)))
	}
	if !s.Forget(uri(1)) || s.Forget(uri(1)) || s.Has(uri(1)) {
		t.Error("Forget does not remove a snippet exactly once")
	}
	if n := len(s.All()); n != buffer.MaxSnippets-1 {
		t.Errorf("All holds %d snippets, want %d", n, buffer.MaxSnippets-1)
	}
}
