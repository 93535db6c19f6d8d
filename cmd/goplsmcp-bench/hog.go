package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// hogEnv, set in the environment of the harness's own binary, makes it a
// CPU hog instead (see startHog): "THREADS,SECONDS".
const hogEnv = "GOPLSMCP_BENCH_HOG"

// hogMain is the whole program of a CPU hog: threads goroutines, each on a
// thread of its own, spinning until stdin closes (the harness stopping it,
// or dying) or the seconds are up, whichever comes first, so that a hog
// never outlives the run that needs it.
func hogMain(spec string, stdin io.Reader) int {
	n, secs, err := parseHog(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp-bench hog:", err)
		return 2
	}
	runtime.GOMAXPROCS(n)
	for range n {
		go spin()
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Duration(secs) * time.Second):
	}
	return 0
}

// spin burns CPU forever; sink keeps the compiler from dropping the loop.
func spin() {
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			sink = x
		}
	}
}

var sink uint64

func parseHog(spec string) (threads, secs int, err error) {
	a, b, ok := strings.Cut(spec, ",")
	threads, err1 := strconv.Atoi(a)
	secs, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || threads < 1 || secs < 1 {
		return 0, 0, fmt.Errorf("%s=%q: want THREADS,SECONDS, both positive", hogEnv, spec)
	}
	return threads, secs, nil
}

// A hog is a running CPU hog process.
type hog struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
}

// startHog starts the harness's binary again as a CPU hog of threads
// busy threads, in a process of its own (so that the measured servers
// compete with it as with another program, not inside the harness), which
// ends by itself after max, or when stop closes its stdin, or when the
// harness dies and so closes it.
func startHog(threads int, max time.Duration) (*hog, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the harness's binary for the CPU hog: %w", err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%d", hogEnv, threads, int(max.Seconds()+1)))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the CPU hog: %w", err)
	}
	h := &hog{cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(h.exited)
	}()
	return h, nil
}

// running reports whether the hog has not exited yet.
func (h *hog) running() bool {
	select {
	case <-h.exited:
		return false
	default:
		return true
	}
}

// stop ends the hog: it closes its stdin and, should it not exit within
// seconds, kills it.
func (h *hog) stop() { h.stopAfter(5 * time.Second) }

func (h *hog) stopAfter(grace time.Duration) {
	h.stdin.Close()
	select {
	case <-h.exited:
	case <-time.After(grace):
		_ = h.cmd.Process.Kill()
		<-h.exited
	}
}
