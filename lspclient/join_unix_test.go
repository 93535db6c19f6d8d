//go:build unix

package lspclient

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// waiting returns how many callers wait for each request of method in
// flight.
func (fs *flights) waiting(method string) []int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var n []int
	for key, f := range fs.m {
		if strings.HasPrefix(key, method+"\x00") {
			n = append(n, f.waiters)
		}
	}
	return n
}

// TestRepeatedQuestionJoins asks one question three times while gopls is
// stopped: the three wait for one request; the first two leave, and the
// request goes on for the third, which gets gopls's answer once gopls
// runs again.
func TestRepeatedQuestionJoins(t *testing.T) {
	root := exampleRoot(t)
	c := startWith(t, Options{Root: root, Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := hoverSummary(ctx, c, root); err != nil {
		t.Fatal(err)
	}
	pid := c.PID()
	stopProcess(t, pid)
	t.Cleanup(func() { signalPID(pid, sigCont) })

	type answer struct {
		text string
		err  error
	}
	answers := make([]chan answer, 3)
	cancels := make([]context.CancelFunc, 3)
	var wg sync.WaitGroup
	for i := range answers {
		answers[i] = make(chan answer, 1)
		callCtx, cancel := context.WithCancel(ctx)
		cancels[i] = cancel
		wg.Go(func() {
			text, err := hoverSummary(callCtx, c, root)
			answers[i] <- answer{text, err}
		})
		want := i + 1
		waitFor(t, 10*time.Second, "the caller to join", func() bool {
			w := c.flights.waiting("textDocument/hover")
			return len(w) == 1 && w[0] == want
		})
	}
	cancels[0]()
	cancels[1]()
	for i := range 2 {
		if a := <-answers[i]; !errors.Is(a.err, context.Canceled) {
			t.Errorf("caller %d, cancelled: %q, %v", i, a.text, a.err)
		}
	}
	if w := c.flights.waiting("textDocument/hover"); len(w) != 1 || w[0] != 1 {
		t.Fatalf("after two of three left, the waiters are %v, want [1]", w)
	}
	if err := signalPID(pid, sigCont); err != nil {
		t.Fatal(err)
	}
	a := <-answers[2]
	if a.err != nil || !strings.Contains(a.text, "func report.Summary") {
		t.Fatalf("the caller who stayed: %q, %v", a.text, a.err)
	}
	cancels[2]()
	wg.Wait()
	if h := c.Health(); h.Restarts != 0 {
		t.Errorf("Health = %+v, want no restart", h)
	}
}
