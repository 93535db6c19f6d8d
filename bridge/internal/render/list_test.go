package render_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
)

// TestLimitOr checks that zero takes the default and a negative limit is
// refused.
func TestLimitOr(t *testing.T) {
	for _, tt := range []struct{ limit, want int }{{0, 50}, {3, 3}} {
		if got, err := render.LimitOr(tt.limit, 50); err != nil || got != tt.want {
			t.Errorf("LimitOr(%d, 50) = %d, %v; want %d", tt.limit, got, err, tt.want)
		}
	}
	if _, err := render.LimitOr(-1, 50); err == nil {
		t.Error("LimitOr(-1, 50): got no error, want one")
	}
}

// TestForEach checks that every index is called once, and that none is
// started once ctx is done.
func TestForEach(t *testing.T) {
	calls := make([]atomic.Int32, 100)
	render.ForEach(t.Context(), len(calls), func(i int) { calls[i].Add(1) })
	for i := range calls {
		if n := calls[i].Load(); n != 1 {
			t.Errorf("index %d called %d times, want once", i, n)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var started atomic.Int32
	render.ForEach(ctx, 100, func(int) { started.Add(1) })
	// A send on a free semaphore and a done ctx may both be ready, so a
	// few calls may start; never all.
	if n := started.Load(); n == 100 {
		t.Errorf("%d calls started after ctx was done, want fewer than all", n)
	}
}
