package lspclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Slow is not stuck. A request waits as long as gopls works: on a busy
// machine a cold references search may take minutes, and failing it after
// a fixed time only makes the retry start the work again. What is bounded
// is a gopls that shows no sign of work while a request waits for it, for
// the whole of a stall window (Options.Timeout):
//
//   - no message from gopls (progress, diagnostics, log lines, answers);
//   - no CPU time used by gopls's process tree (gopls and the go commands
//     it runs), where the system tells it cheaply: /proc on Linux (with
//     major page faults: waiting for the disk is work too), the job
//     object on Windows. Elsewhere an answered probe counts as work, up to
//     the load timeout. On Linux each of those children is also bounded
//     apart (children_linux.go): one that never ends — a C compiler on a
//     preamble that never finishes — is killed at its bound instead of
//     counting as work for ever.
//
// The workspace load is not watched: it has its own bound, the load
// timeout, since the go command gopls waits for may work without using
// CPU (downloading modules, waiting for a lock).
//
// A stalled request then gets a probe that gopls answers ahead of any work
// (see process.alive). No answer: gopls no longer runs or reads, and is
// killed and restarted. An answer: gopls lives but does nothing for this
// request — blocked on a read that never ends, say — and the request alone
// fails. Either way the error is a *StuckError, which says which.

// stallMinTicks is the CPU time a stall window must see for gopls to
// count as working, in the units of procTree.cpuTicks: more than an idle
// Go runtime spends on its own (its timers and collector), far less than
// any real work over a window of seconds.
const stallMinTicks = 2

// A StuckError says that gopls showed no sign of work on a request for a
// whole stall window. It is ErrTimeout.
type StuckError struct {
	Method string
	// File is the document the request was about, as a path, if any.
	File string
	// Idle is the stall window.
	Idle time.Duration
	// Restarted says gopls did not answer a probe either, and was
	// killed and restarted.
	Restarted bool
}

func (e *StuckError) Error() string {
	about := ""
	if e.File != "" {
		about = " about " + e.File
	}
	if e.Restarted {
		return fmt.Sprintf("%s%s: gopls stopped answering (no message, no CPU time and no answer to a probe for %s) and was restarted", e.Method, about, e.Idle)
	}
	return fmt.Sprintf("%s%s: gopls stopped working on the request (no message and no CPU time for %s) while it still answers", e.Method, about, e.Idle)
}

// Is makes errors.Is(err, ErrTimeout) hold.
func (e *StuckError) Is(target error) bool { return target == ErrTimeout }

// workSign is what shows gopls working, sampled at each stall check.
type workSign struct {
	heard    uint64 // messages read from gopls
	cpu      uint64 // CPU time of its tree, in the tree's units
	cpuKnown bool
}

func (p *process) workSign() workSign {
	s := workSign{heard: p.stream.heard.Load()}
	s.cpu, s.cpuKnown = p.tree.cpuTicks()
	return s
}

// worked reports whether gopls showed work between two samples.
func (s workSign) worked(before workSign) bool {
	if s.heard != before.heard {
		return true
	}
	return s.cpuKnown && before.cpuKnown && s.cpu >= before.cpu+stallMinTicks
}

// watched runs req, a request to p, under the stall watch: ctx, as req
// gets it, ends with a *StuckError as its cause when p shows no sign of
// work for a whole window, and watched returns that error. The watch's
// goroutine has ended when watched returns.
func (c *Client) watched(ctx context.Context, p *process, method string, params any, req func(context.Context) error) error {
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	// The watch starts a step in, where it takes its first look: most
	// requests are answered long before, and a goroutine started for
	// each would be a wake-up on the path of every one (the editor's
	// sub-millisecond requests feel it).
	began := time.Now()
	var (
		mu      sync.Mutex
		ended   bool
		wg      sync.WaitGroup
		first   = c.opts.Timeout / stallSteps
		starter = time.AfterFunc(first, func() {
			mu.Lock()
			defer mu.Unlock()
			if !ended {
				wg.Go(func() { c.watchStall(wctx, cancel, done, p, method, params, began) })
			}
		})
	)
	c.kills.Lock()
	kills := c.kills.n
	c.kills.Unlock()
	err := req(wctx)
	starter.Stop()
	mu.Lock()
	ended = true
	mu.Unlock()
	close(done)
	wg.Wait()
	if ctx.Err() != nil {
		return err
	}
	if kerr := c.killedFor(kills, method, params, err); kerr != nil {
		// What the request waited for was killed: that is the answer.
		return kerr
	}
	var stuck *StuckError
	if errors.As(context.Cause(wctx), &stuck) {
		return stuck
	}
	return err
}

// killedFor returns the *ChildError of a process gopls ran that was
// killed while a request waited (since kills counted since), if the
// request failed or was about a file of the killed process's package: its
// answer, if any, says nothing of that package. Else nil.
func (c *Client) killedFor(since uint64, method string, params any, err error) error {
	c.kills.Lock()
	defer c.kills.Unlock()
	n := c.kills.n - since
	if n == 0 {
		return nil
	}
	recent := c.kills.list[max(len(c.kills.list)-int(min(n, uint64(len(c.kills.list)))), 0):]
	// The first kill of the request's package, else (for a request that
	// failed) the first kill: a kill ends a tool with what it started,
	// and what escaped it, killed after, says less of it.
	file := requestFile(params)
	for _, k := range recent {
		if file != "" && k.dir != "" && filepath.Dir(file) == k.dir {
			return &ChildError{Method: method, Sentence: k.sentence}
		}
	}
	if err != nil {
		return &ChildError{Method: method, Sentence: recent[0].sentence}
	}
	return nil
}

// stallSteps is how many looks at gopls a stall window holds: a stall is
// seen within a window and two steps of its start, not two windows.
const stallSteps = 4

// watchStall is the watch of one request (see watched).
// It starts a step after the request began (began), and looks at once.
func (c *Client) watchStall(ctx context.Context, cancel context.CancelCauseFunc, done <-chan struct{}, p *process, method string, params any, began time.Time) {
	window := c.opts.Timeout
	tick := time.NewTicker(window / stallSteps)
	defer tick.Stop()
	// signs[0] is the look a window ago, or the first. The first look is
	// taken a step in, not at the start: a look reads /proc for every
	// process of the machine, and most requests (go_file_context makes
	// hundreds at once) are answered long before a step; one that waits
	// is judged a step later than it could be, over a whole window still.
	var signs []workSign
	for look := 0; ; look++ {
		if look > 0 {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		now := p.workSign()
		if len(signs) == 0 || now.worked(signs[len(signs)-1]) {
			// Work since the last look: the window starts again.
			signs = append(signs[:0], now)
			continue
		}
		if signs = append(signs, now); len(signs) <= stallSteps {
			continue
		}
		signs = signs[1:]
		if now.worked(signs[0]) {
			continue
		}
		alive := p.alive(probeDeadline(window))
		select {
		case <-done:
			return // answered during the probe
		default:
		}
		if alive && !c.Loaded() {
			// The workspace load has its own bound, whatever gopls does:
			// the go command it waits for may be downloading modules, or
			// held by a lock, using no CPU while it works. Only a gopls
			// that no longer answers is judged during it.
			signs = append(signs[:0], p.workSign())
			continue
		}
		if alive && !now.cpuKnown && time.Since(began) < c.opts.LoadTimeout {
			// Blind to gopls's CPU time here: a gopls that answers is
			// taken to be working, until the load timeout.
			signs = append(signs[:0], p.workSign())
			continue
		}
		stuck := &StuckError{Method: method, File: requestFile(params), Idle: window, Restarted: !alive}
		// The evidence, over the window: what gopls sent and what its
		// process group used (below stallMinTicks: clock ticks plus major
		// faults), and whether it answered the probe.
		evidence := []any{"messages_in_window", now.heard - signs[0].heard, "cpu_ticks_in_window", "unknown", "probe_answered", alive}
		if now.cpuKnown && signs[0].cpuKnown {
			evidence[3] = now.cpu - signs[0].cpu
		}
		if alive {
			c.log.Warn("gopls stopped working on a request; it fails, gopls is kept", append([]any{"method", method, "file", stuck.File,
				"idle", window, "waited", time.Since(began).Round(time.Millisecond)}, evidence...)...)
			cancel(stuck)
			return
		}
		c.log.Warn("gopls stopped answering; killing and restarting it", append([]any{"pid", p.pid, "method", method, "file", stuck.File,
			"idle", window, "waited", time.Since(began).Round(time.Millisecond)}, evidence...)...)
		cancel(stuck)
		p.fail(fmt.Errorf("gopls stopped answering (no message, no CPU time and no answer to a probe for %s)", window))
		return
	}
}

// requestFile returns the path of the document a request is about, if
// its parameters name one: the stuck request's error names it, as the
// likeliest culprit.
func requestFile(params any) string {
	data, err := json.Marshal(params)
	if err != nil {
		return ""
	}
	var doc struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(data, &doc) != nil || doc.TextDocument.URI == "" {
		return ""
	}
	if path, err := URIPath(doc.TextDocument.URI); err == nil {
		return path
	}
	return strings.TrimPrefix(doc.TextDocument.URI, "file://")
}
