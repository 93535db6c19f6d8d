package ask

import (
	"context"
	"sync"
)

// concurrency bounds the requests a tool has in flight at once: enough to
// keep gopls busy, few enough to leave room for other calls.
const concurrency = 8

// ForEach calls f for every index below n, at most a few at a time, and
// returns once all calls have ended: a list's entries asked of gopls in
// parallel. It stops starting new calls when ctx is done.
func ForEach(ctx context.Context, n int, f func(i int)) {
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
