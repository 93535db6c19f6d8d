package bridge

import (
	"context"
	"errors"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
)

// What many tools' handlers use and no internal package can own, for it
// needs the Bridge or is how tools, not answers, behave: limits, a whole
// file's buffer, requests in parallel, and the answer shapes bridge's
// clients name.

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

// Places are the places of a list by file (see render.Places); tools'
// outputs use them, and clients of this package read them.
type Places = render.Places

// Counts are numbers by file or package (see render.Counts).
type Counts = render.Counts

// Loc is a place in the code as tools report it (see render.Loc).
type Loc = render.Loc
