package lspclient

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Restart backoff: the first unexpected end of gopls in a crash window is
// answered by an immediate restart, each further one waits twice as long
// as the one before, up to restartBackoffMax.
const (
	restartBackoffBase = 100 * time.Millisecond
	restartBackoffMax  = time.Second
)

// probeDeadline is how long a liveness probe waits for gopls: long enough
// for a busy process to answer a request that skips its queue, short
// enough that a stopped one is replaced soon after a request times out.
func probeDeadline(timeout time.Duration) time.Duration {
	return min(max(timeout/2, time.Second), 5*time.Second)
}

// supervise is the one goroutine that starts, watches and stops gopls. It
// reports the outcome of the first start on started; after that it
// replaces every gopls that ends or fails, until Close.
func (c *Client) supervise(startCtx context.Context, started chan<- error) {
	defer close(c.done)
	p, err := c.launch(startCtx)
	started <- err
	if err != nil {
		return
	}
	for {
		select {
		case <-c.life.Done():
			// A gopls that has already failed gets no polite shutdown.
			p.stop(c.log, p.ctx.Err() == nil)
			return
		case q := <-c.recycle:
			if q == p && p.ctx.Err() == nil {
				if p = c.replace(p); p == nil {
					return
				}
			}
			continue
		case <-p.ctx.Done():
		}
		cause := context.Cause(p.ctx)
		if errors.Is(cause, errOutputEnded) && p.waitExit(exitReasonWait) {
			// The output ends when the process does; its exit says why.
			// On a loaded machine the exit is seen well after the end of
			// the output, and the wait returns as soon as it is.
			cause = fmt.Errorf("gopls exited: %v", p.waitErr)
		}
		p.stop(c.log, false)
		c.retire(p, cause)
		if p = c.relaunch(); p == nil {
			return
		}
	}
}

// launch starts a gopls, initializes it, sends it every open document and
// makes it the one requests go to.
func (c *Client) launch(ctx context.Context) (*process, error) {
	// Found before gopls starts: its first load must not read them.
	special := findSpecial(c.opts.Root)
	c.docs.mu.Lock()
	for _, path := range special {
		c.recordShieldLocked(path)
	}
	c.writeOverlayLocked()
	c.docs.mu.Unlock()
	p, err := spawn(c.opts, c.log, c.handle)
	if err != nil {
		return nil, err
	}
	c.pid.Store(int64(p.pid))
	p.goBG(func() { c.watchChildren(p) })
	if err := c.initialize(ctx, p); err != nil {
		p.stop(c.log, false)
		return nil, err
	}
	// The documents to reopen are queued first for the new process, and
	// the process published, under the document lock, so that a
	// concurrent change either is part of the replay or is queued after
	// it. The writer sends them; requests to the new process wait until
	// it has (see flush).
	c.docs.mu.Lock()
	replay := c.replayNotes()
	c.notes.reset(p, replay)
	c.mu.Lock()
	c.cur = p
	c.failing = false
	c.broadcastLocked()
	c.mu.Unlock()
	c.docs.mu.Unlock()
	if len(replay) > 0 {
		c.log.Debug("reopening documents in gopls", "pid", p.pid, "count", len(replay))
	}
	// A new gopls knows nothing of what the last one answered.
	c.modified()
	c.resetRenewal()
	c.viewsChanged()
	c.markLoadedWhenIdle(p)
	return p, nil
}

// retire forgets a gopls that has ended: the state it produced —
// diagnostics, progress, the end of its load — belongs to it alone.
func (c *Client) retire(p *process, cause error) {
	now := time.Now()
	c.mu.Lock()
	if c.cur == p {
		c.cur = nil
	}
	c.restarts++
	c.lastExit = cause.Error()
	c.deaths = append(c.deaths, now)
	c.broadcastLocked()
	c.mu.Unlock()
	c.diags.reset()
	c.prog.reset()
	c.log.Warn("gopls ended unexpectedly; restarting it", "pid", p.pid, "reason", cause,
		"uptime", now.Sub(p.started).Round(time.Millisecond), "stderr", p.stderr())
}

// relaunch starts gopls again, after the backoff the recent deaths call
// for, until one start succeeds or the client is closed (then it returns
// nil). A failed start counts as a death.
func (c *Client) relaunch() *process {
	for {
		delay := c.restartDelay()
		t := time.NewTimer(delay)
		select {
		case <-c.life.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		begin := time.Now()
		p, err := c.launch(c.life)
		if err == nil {
			c.log.Info("gopls restarted", "pid", p.pid, "took", time.Since(begin).Round(time.Millisecond))
			return p
		}
		if c.life.Err() != nil {
			return nil
		}
		c.failedStart(err)
	}
}

// failedStart counts a start of gopls that failed as a death.
func (c *Client) failedStart(err error) {
	c.mu.Lock()
	c.restarts++
	c.lastExit = err.Error()
	c.deaths = append(c.deaths, time.Now())
	c.mu.Unlock()
	c.log.Warn("gopls failed to start", "error", err)
}

// restartDelay returns how long to wait before the next start, from the
// deaths within the crash window, and enters the crash-loop state when
// there were too many.
func (c *Client) restartDelay() time.Duration {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	recent := c.deaths[:0]
	for _, d := range c.deaths {
		if now.Sub(d) < c.opts.CrashWindow {
			recent = append(recent, d)
		}
	}
	c.deaths = recent
	n := len(recent)
	if n >= c.opts.CrashLimit {
		// Wait until fewer than CrashLimit deaths remain in the window.
		c.retryAt = recent[n-c.opts.CrashLimit].Add(c.opts.CrashWindow)
		if !c.failing {
			c.failing = true
			c.broadcastLocked()
			c.log.Error(fmt.Sprintf("gopls ended %d times within %s; requests fail until it is started again", n, c.opts.CrashWindow),
				"retry_at", c.retryAt.Format(time.TimeOnly), "last", c.lastExit)
		}
		return time.Until(c.retryAt)
	}
	if n <= 1 {
		return 0
	}
	return min(restartBackoffBase<<(n-2), restartBackoffMax)
}

// suspect checks, once at a time, whether a gopls that let a request time
// out still answers at all; one that does not is failed, and so replaced.
// A gopls that answers is only slow: replacing it would cost a new
// workspace load and answer nothing sooner.
func (c *Client) suspect(p *process) {
	if !p.probing.CompareAndSwap(false, true) {
		return
	}
	started := p.goBG(func() {
		defer p.probing.Store(false)
		deadline := probeDeadline(c.opts.Timeout)
		if p.alive(deadline) || p.ctx.Err() != nil {
			return
		}
		c.log.Warn("gopls stopped answering; killing and restarting it", "pid", p.pid, "probe_deadline", deadline)
		p.fail(fmt.Errorf("gopls stopped answering (no answer to a probe within %s)", deadline))
	})
	if !started {
		p.probing.Store(false)
	}
}

// suspectCurrent checks the running gopls, if any (see suspect).
func (c *Client) suspectCurrent() {
	if p := c.live(); p != nil {
		c.suspect(p)
	}
}

// exitReasonWait bounds how long a gopls whose output ended is given to
// exit, so that the reason recorded is its exit status (killed, crashed)
// rather than the end of its output. A gopls that closed its output and
// lives on costs this once before it is stopped.
const exitReasonWait = 3 * time.Second
