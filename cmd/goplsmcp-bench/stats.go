package main

import (
	"fmt"
	"slices"
	"time"
)

// samples are measured durations of one thing.
type samples []time.Duration

// pct returns the p-th percentile (0 < p ≤ 100) by the nearest-rank
// method, or 0 for no samples.
func (s samples) pct(p float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	rank := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}

func (s samples) p50() time.Duration { return s.pct(50) }
func (s samples) p95() time.Duration { return s.pct(95) }

// ms formats a duration in milliseconds with a precision that suits its
// size.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f == 0:
		return "0 ms"
	case f < 10:
		return fmt.Sprintf("%.2f ms", f)
	case f < 100:
		return fmt.Sprintf("%.1f ms", f)
	}
	return fmt.Sprintf("%.0f ms", f)
}

// secs formats a longer duration in seconds.
func secs(d time.Duration) string {
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// ratio formats a/b, e.g. "1.03×".
func ratio(a, b float64) string {
	if b == 0 {
		return "—"
	}
	r := a / b
	if r < 0.1 {
		return fmt.Sprintf("%.3f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

func durRatio(a, b time.Duration) string { return ratio(float64(a), float64(b)) }

// kib formats a byte count.
func kib(n int) string {
	if n < 10<<10 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

// check renders whether a target is met.
func check(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}
