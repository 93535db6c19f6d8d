package bridge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// TestSearchOrderIsFixed: gopls breaks ties between equally good matches
// in whatever order its parallel search finishes; the listing must not
// depend on it. Every shuffle of one answer sorts the same way: the
// workspace first, exact matches before prefixes before fuzzy ones.
func TestSearchOrderIsFixed(t *testing.T) {
	sym := func(name, uri string, line uint32) symbolInfo {
		return symbolInfo{Name: name, Kind: 12, Location: protocol.Location{URI: protocol.DocumentURI(uri), Range: protocol.Range{Start: protocol.Position{Line: line}}}}
	}
	want := []symbolInfo{
		sym("a.Handler", "file:///w/a/a.go", 3),
		sym("b.Handler", "file:///w/b/b.go", 1),
		sym("b.handler", "file:///w/b/b.go", 9),
		sym("a.HandlerFunc", "file:///w/a/a.go", 7),
		sym("c.HandlerFunc", "file:///w/c/c.go", 2),
		sym("a.handlerList", "file:///w/a/a.go", 20),
		sym("a.httpHandler", "file:///w/a/a.go", 30),
		sym("a.HandleDone", "file:///w/a/a.go", 40),
		sym("http.Handler", "file:///goroot/src/net/http/server.go", 86),
		sym("http.HandlerFunc", "file:///goroot/src/net/http/server.go", 2286),
	}
	for i := range 50 {
		got := append([]symbolInfo(nil), want...)
		rand.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		sortSymbols("/w", "Handler", got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("shuffle %d sorts differently (-want +got):\n%s", i, diff)
		}
	}
}

// TestSearchSettled: gopls keeps its 100 best matches, and of those that
// score as the last one kept, a different few each time (its parallel
// search decides). Two such answers, which differ in that last group
// only, keep the same matches, and leave out the same number; an answer
// under the limit is kept whole.
func TestSearchSettled(t *testing.T) {
	sym := func(name, file string) symbolInfo {
		return symbolInfo{Name: name, Kind: 12, Location: protocol.Location{URI: protocol.DocumentURI("file:///goroot/src/" + file)}}
	}
	// Better scores first; within a score, by length, then name.
	var settled []symbolInfo
	for _, tier := range [][]string{
		{"Serve", "ServeMux", "ServeTLS"},
		{"conn.serve", "Server.Serve"},
		{"Handler.ServeHTTP", "ServeMux.ServeHTTP", "globalOptionsHandler.ServeHTTP"},
	} {
		for _, name := range tier {
			settled = append(settled, sym(name, "net/http/server.go"))
		}
	}
	for i := 0; len(settled) < 60; i++ {
		settled = append(settled, sym(fmt.Sprintf("aVeryLongHandlerNameNumber%02d.ServeHTTP", i), "net/http/x.go"))
	}
	// The last score's matches: gopls keeps 40 of 60, and which varies.
	var last []symbolInfo
	for i := range 60 {
		last = append(last, sym(fmt.Sprintf("TestServe%02d", i), "net/http/serve_test.go"))
	}
	answer := func(keep func(i int) bool) []symbolInfo {
		out := slices.Clone(settled)
		for i, s := range last {
			if keep(i) && len(out) < maxWorkspaceSymbols {
				out = append(out, s)
			}
		}
		return out
	}
	one := answer(func(i int) bool { return i%3 != 0 })
	two := answer(func(i int) bool { return i >= 20 })
	if len(one) != maxWorkspaceSymbols || len(two) != maxWorkspaceSymbols || cmp.Equal(one, two) {
		t.Fatalf("the two answers must be full and differ: %d, %d symbols", len(one), len(two))
	}
	got1, n1 := settledMatches(one)
	got2, n2 := settledMatches(two)
	if diff := cmp.Diff(settled, got1); diff != "" {
		t.Errorf("first answer keeps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(got1, got2); diff != "" || n1 != n2 || n1 != 40 {
		t.Errorf("two answers that differ in the last score's matches keep different ones (left out %d and %d, want 40 each) (-first +second):\n%s", n1, n2, diff)
	}
	if got, n := settledMatches(settled); n != 0 || len(got) != len(settled) {
		t.Errorf("an answer under the limit lost %d matches", n)
	}
}
