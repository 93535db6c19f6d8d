package bridge

import (
	"math/rand/v2"
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
