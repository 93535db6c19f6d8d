package bridge

import "testing"

// TestLimitOr checks that zero takes the default and a negative limit is
// refused.
func TestLimitOr(t *testing.T) {
	for _, tt := range []struct{ limit, want int }{{0, 50}, {3, 3}} {
		if got, err := limitOr(tt.limit, 50); err != nil || got != tt.want {
			t.Errorf("limitOr(%d, 50) = %d, %v; want %d", tt.limit, got, err, tt.want)
		}
	}
	if _, err := limitOr(-1, 50); err == nil {
		t.Error("limitOr(-1, 50): got no error, want one")
	}
}
