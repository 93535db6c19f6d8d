package ask_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
)

// TestForEach checks that every index is called once, and that none is
// started once ctx is done.
func TestForEach(t *testing.T) {
	calls := make([]atomic.Int32, 100)
	ask.ForEach(t.Context(), len(calls), func(i int) { calls[i].Add(1) })
	for i := range calls {
		if n := calls[i].Load(); n != 1 {
			t.Errorf("index %d called %d times, want once", i, n)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var started atomic.Int32
	ask.ForEach(ctx, 100, func(int) { started.Add(1) })
	// A send on a free semaphore and a done ctx may both be ready, so a
	// few calls may start; never all.
	if n := started.Load(); n == 100 {
		t.Errorf("%d calls started after ctx was done, want fewer than all", n)
	}
}
