//go:build unix

package bridge_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// chaosStack is the whole server in-process, like startStack, with the
// lspclient.Client at hand so that the test can kill its gopls and hold
// buffers in it.
func chaosStack(t *testing.T, root string, opts lspclient.Options) (*mcp.Client, *lspclient.Client) {
	t.Helper()
	st := startStackOf(t, root, stackConfig{lsp: opts})
	return st.client, st.lsp
}

// chaosCall is one of the calls the chaos test makes over and over.
type chaosCall struct {
	tool string
	args map[string]any
}

var chaosCalls = []chaosCall{
	{"go_diagnostics", map[string]any{}},
	{"go_diagnostics", map[string]any{"files": []string{"shapes/shapes.go"}}},
	{"go_definition", map[string]any{"file": "main.go", "line": 13, "column": 23}},
	{"go_describe", map[string]any{"file": "shapes/shapes.go", "symbol": "Rect.Area"}},
	{"go_symbol_references", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape"}},
}

// chaosOutcome is what became of one call.
type chaosOutcome struct {
	call       int
	sent, done time.Time
	text       string
	isError    bool
	err        error // a protocol error or no answer at all
}

// TestChaos kills gopls again and again, at random moments — while it
// starts, loads, replays buffers or answers — while tool calls are in
// flight. Every call must be answered; each successful answer must be the
// right one; each failure must be the one documented for a restart
// (docs/troubleshooting.md, "When gopls misbehaves"), which a call gets only when gopls
// died under the request and under its one retry; at least 90 % of the
// calls must be answered right; and after the last kill the calls succeed
// with the open buffer still applied.
func TestChaos(t *testing.T) {
	const kills = 12
	root := realTempDir(t)
	if err := os.CopyFS(root, os.DirFS("../testdata/example")); err != nil {
		t.Fatal(err)
	}
	c, client := chaosStack(t, root, lspclient.Options{
		Timeout: 20 * time.Second,
		// The kills come faster than any real crash loop would.
		CrashLimit: 10 * kills,
		Logger:     slog.New(slog.NewTextHandler(&logWriter{t: t}, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// A buffer that differs from the disk: broken.go with another error.
	// No call of the mix syncs broken.go from disk, so every workspace
	// diagnosis must report the buffer's error.
	brokenPath := filepath.Join(root, "broken", "broken.go")
	disk, err := os.ReadFile(brokenPath)
	if err != nil {
		t.Fatal(err)
	}
	buffer := strings.Replace(string(disk), `H: "1"`, `H: true`, 1)
	if _, err := client.Sync(ctx, lspclient.FileURI(brokenPath), buffer); err != nil {
		t.Fatal(err)
	}
	const bufferError = "broken/broken.go: 1 error\n8:30: cannot use true (untyped bool constant) as float64 value in struct literal"

	// The right answers, from a gopls nobody kills.
	want := make([]string, len(chaosCalls))
	for i, call := range chaosCalls {
		res, err := c.CallTool(ctx, call.tool, call.args)
		if err != nil || res.IsError {
			t.Fatalf("warm-up %s: %v %v", call.tool, err, res)
		}
		want[i] = res.Text()
	}
	if !strings.Contains(want[0], bufferError) {
		t.Fatalf("workspace diagnostics before any kill = %q; want the buffer's error", want[0])
	}

	var (
		mu       sync.Mutex
		outcomes []chaosOutcome
		// right counts the calls answered right so far.
		right atomic.Int64
	)
	stop := make(chan struct{})
	var workers sync.WaitGroup
	for w := range 4 {
		workers.Go(func() {
			for n := w; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				i := n % len(chaosCalls)
				o := chaosOutcome{call: i, sent: time.Now()}
				callCtx, cancel := context.WithTimeout(ctx, 90*time.Second)
				res, err := c.CallTool(callCtx, chaosCalls[i].tool, chaosCalls[i].args)
				cancel()
				o.done, o.err = time.Now(), err
				if err == nil {
					o.text, o.isError = res.Text(), res.IsError
					if !o.isError && o.text == want[i] {
						right.Add(1)
					}
				}
				mu.Lock()
				outcomes = append(outcomes, o)
				mu.Unlock()
			}
		})
	}

	// The killer alternates: one kill hits the new gopls within 300 ms of
	// its start (while it initializes, replays buffers or loads), the next
	// hits it up to a second after it runs (while it answers), once the
	// calls have been answered right lateAnswers times since the kill
	// before — a count, not a time, so that a slow machine makes as many
	// calls between the kills as a fast one. Recovery is the time from a
	// kill to a new gopls running, when that happens before the next kill.
	const lateAnswers = 60
	var (
		killTimes  []time.Time
		killed     []int
		recoveries []time.Duration
	)
	for i := range kills {
		pid := client.PID()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("killing gopls %d: %v", pid, err)
		}
		k := time.Now()
		rightAtKill := right.Load()
		killTimes = append(killTimes, k)
		killed = append(killed, pid)
		early := i%2 == 0
		var next time.Time
		waitUntil(t, ctx, "a new gopls is started and the next kill is due", func() bool {
			if !early && right.Load()-rightAtKill < lateAnswers {
				return false
			}
			h := client.Health()
			if h.PID == pid {
				return false
			}
			if next.IsZero() && (early || h.State == "running") {
				if h.State == "running" {
					recoveries = append(recoveries, time.Since(k))
				}
				window := time.Second
				if early {
					window = 300 * time.Millisecond
				}
				next = time.Now().Add(time.Duration(rand.Int64N(int64(window))))
			}
			return !next.IsZero() && time.Now().After(next)
		})
	}
	lastKill := killTimes[len(killTimes)-1]
	waitUntil(t, ctx, "gopls runs after the last kill", func() bool { return client.Health().State == "running" })
	lastRecovery := time.Since(lastKill)
	last := time.Now()
	close(stop)
	workers.Wait()

	// Every call was answered, and every success was right.
	var ok, toolErrors int
	errorTexts := map[string]int{}
	for _, o := range outcomes {
		switch {
		case o.err != nil:
			t.Errorf("%s sent at %s got no answer: %v", chaosCalls[o.call].tool, o.sent.Format(time.TimeOnly), o.err)
		case o.isError:
			toolErrors++
			// Kills during the call, or just before it: a request sent
			// while a death is not yet noticed fails too.
			n := 0
			for _, k := range killTimes {
				if k.After(o.sent.Add(-time.Second)) && k.Before(o.done) {
					n++
				}
			}
			errorTexts[fmt.Sprintf("%s after %d kills: %s", chaosCalls[o.call].tool, n, o.text)]++
			if !restartError.MatchString(o.text) {
				t.Errorf("%s failed during the chaos with %q; want only the restart error, %q", chaosCalls[o.call].tool, o.text, restartMessage)
			}
		case o.text != want[o.call]:
			t.Errorf("%s %v answered wrongly during the chaos:\n%s\nwant:\n%s", chaosCalls[o.call].tool, chaosCalls[o.call].args, o.text, want[o.call])
		default:
			ok++
		}
		if d := o.done.Sub(o.sent); d > 60*time.Second {
			t.Errorf("%s took %s to answer", chaosCalls[o.call].tool, d)
		}
	}

	if len(outcomes) == 0 || ok*10 < len(outcomes)*9 {
		t.Errorf("%d of %d calls answered right during the kills; want at least 90 %%", ok, len(outcomes))
	}

	// After the last kill, every call succeeds, the buffer still applied.
	afterStart := time.Now()
	for i, call := range chaosCalls {
		res, err := c.CallTool(ctx, call.tool, call.args)
		if err != nil || res.IsError || res.Text() != want[i] {
			t.Errorf("after the last kill, %s %v = %v, %v; want %q", call.tool, call.args, res, err, want[i])
		}
	}
	if text, _, open := client.Document(lspclient.FileURI(brokenPath)); !open || text != buffer {
		t.Error("the buffer is no longer open with its text after the kills")
	}
	if got, _ := os.ReadFile(brokenPath); string(got) != string(disk) {
		t.Error("broken.go changed on disk")
	}
	for _, p := range killed {
		if !errorsIsESRCH(syscall.Kill(p, 0)) {
			t.Errorf("killed gopls %d was not reaped", p)
		}
	}

	slices.Sort(recoveries)
	t.Logf("chaos: %d kills in %s; %d calls answered: %d right, %d tool errors, %d unanswered or wrong; restarts %d",
		len(killTimes), last.Sub(killTimes[0]).Round(time.Millisecond), len(outcomes), ok, toolErrors,
		len(outcomes)-ok-toolErrors, client.Health().Restarts)
	for text, n := range errorTexts {
		t.Logf("chaos: tool error ×%d: %s", n, text)
	}
	if len(recoveries) > 0 {
		t.Logf("chaos: recovery (kill to a new gopls running) for the %d of %d kills whose successor was let run: min %s, median %s, max %s",
			len(recoveries), len(killTimes), recoveries[0].Round(time.Millisecond),
			recoveries[len(recoveries)/2].Round(time.Millisecond), recoveries[len(recoveries)-1].Round(time.Millisecond))
	}
	t.Logf("chaos: running again %s after the last kill", lastRecovery.Round(time.Millisecond))
	t.Logf("chaos: all %d calls right after the last kill, in %s", len(chaosCalls), time.Since(afterStart).Round(time.Millisecond))
}

func errorsIsESRCH(err error) bool { return err == syscall.ESRCH }

// restartMessage is the error a call gets when gopls was restarted under
// it; a tool that names a file says which first.
const restartMessage = "gopls was restarted while answering; send the call again"

var restartError = regexp.MustCompile(`^([^ ]+: )?` + regexp.QuoteMeta(restartMessage) + `$`)

// waitUntil waits for cond, failing the test when ctx ends first.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		}
	}
}

// logWriter sends a log to the test's log, shown on failure or with -v.
type logWriter struct {
	t  *testing.T
	mu sync.Mutex
}

func (w *logWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
