package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// symbolKinds names LSP symbol kinds in Go's own words.
var symbolKinds = [...]string{
	1: "file", 2: "module", 3: "namespace", 4: "package", 5: "type", 6: "method",
	7: "property", 8: "field", 9: "constructor", 10: "enum", 11: "interface",
	12: "func", 13: "var", 14: "const", 15: "string", 16: "number", 17: "bool",
	18: "array", 19: "object", 20: "key", 21: "null", 22: "enum member",
	23: "struct", 24: "event", 25: "operator", 26: "type parameter",
}

// symbolKind names the LSP symbol kind k.
func symbolKind(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// limitOr checks a limit argument and applies the tool's default to zero.
func limitOr(limit, def int) (int, error) {
	if limit < 0 {
		return 0, errors.New("limit must be positive; leave it out for the default")
	}
	if limit == 0 {
		return def, nil
	}
	return limit, nil
}

// concurrency bounds the requests a tool has in flight at once: enough to
// keep gopls busy, few enough to leave room for other calls.
const concurrency = 8

// forEach calls f for every index below n, at most concurrency at a time,
// and returns once all calls have ended. It stops starting new calls when
// ctx is done.
func forEach(ctx context.Context, n int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, concurrency)
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}

// sortLocations orders locations in the workspace first, then by file and
// position.
func (b *Bridge) sortLocations(locs []protocol.Location) {
	outside := func(l protocol.Location) int {
		if p, err := lspclient.URIPath(string(l.URI)); err == nil && iplace.Within(b.root, p) {
			return 0
		}
		return 1
	}
	slices.SortFunc(locs, func(x, y protocol.Location) int {
		return cmp.Or(cmp.Compare(outside(x), outside(y)), cmp.Compare(x.URI, y.URI),
			cmp.Compare(x.Range.Start.Line, y.Range.Start.Line),
			cmp.Compare(x.Range.Start.Character, y.Range.Start.Character))
	})
}

// Places are the places of a list by file (see render.Places); tools'
// outputs use them, and clients of this package read them.
type Places = render.Places

// Counts are numbers by file or package (see render.Counts).
type Counts = render.Counts
