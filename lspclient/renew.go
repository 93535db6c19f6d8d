package lspclient

import (
	"context"
	"path/filepath"
	"sync"
	"time"
)

// gopls (v0.23.0, and golang/tools at the time of writing) keeps, for the
// life of a view, the last type-checked package of every package that has
// ever had an open file: the package's handle marks it open when one of
// its files is opened and never clears the mark when the last one closes
// (evalPackageHandle in gopls/internal/cache/check.go only ever sets
// isOpen on a handle carried from snapshot to snapshot), so every later
// type check of that package is cached as if it were open. The cost is
// per distinct package, for good: 218 GOROOT/src files (41 packages)
// opened, hovered and closed left gopls's live heap 64 MB bigger, with 26
// syntax packages still live; 25 tailscale files (20 packages), 137 MB;
// a 6-minute soak over 787 GOROOT files grew it from 0.7 to 2.4 GB. With
// the mark cleared (a patched gopls) the same soak stayed between 0.55
// and 1.2 GB. Closing files, or keeping fewer open, gives none of it back.
//
// A new view is the one thing that drops those handles without a restart
// of gopls: the workspace folder removed and added again in one write.
// The session's open documents stay; gopls loads the workspace again and
// diagnoses it from its file cache: the first request after it waited 1.5
// s on GOROOT/src and 2.2 s on tailscale, and the live heap went back to
// within 12 MB of the loaded workspace's. So the client
// renews the view once the files it closed span renewAfter packages, at
// a moment when none of its requests is in flight (new ones wait briefly
// for it: see drainWait): a request sent after
// the renewal waits for the new view's load in gopls, and nothing sent
// before it is cut short. With an editor attached there is no renewal: it
// would see its workspace reload under it, and a plain gopls keeps the
// editor's packages the same way.
//
// The decision is here alone: Client.traced counts the requests in
// flight, closeLocked reports the packages closed, and a new gopls (which
// starts with nothing kept) clears the count.

// renewAfter is how many packages with files closed make a renewal due:
// some 80 MB of GOROOT/src's packages, 220 MB of tailscale's, for a
// reload of about two seconds. In a 6-minute soak (four sessions walking
// 787 files) that was a renewal every 20 to 30 s, and gopls stayed flat.
const renewAfter = 32

// renewGap is the least time between two renewals made for the count
// (the daemon's renewal when its last session goes is made whenever it
// is asked): each costs gopls a reload, about two seconds of its CPU,
// and the calls right after it wait for it. Renewing as soon as 32
// packages were closed was, in a 6-minute soak, a renewal every 10 s, and
// the calls' p50 1.2–1.8× what they were with no renewal at all.
const renewGap = 30 * time.Second

// renewal is the client's count of the packages gopls keeps for nothing.
type renewal struct {
	mu       sync.Mutex
	inflight int
	// closed holds the directories (a package each, near enough) of the
	// files closed in gopls since its view was last renewed or started.
	closed map[string]bool
	// asked is set when a renewal is wanted whatever the count (the
	// daemon's last session has gone).
	asked bool
	// renewals counts the renewals made (for tests and the log).
	renewals int
	// after is renewAfter (tests lower it); gap is renewGap, unless
	// noGap (tests).
	after int
	gap   time.Duration
	noGap bool
	// last is when the view was last renewed (or gopls started).
	last time.Time
	// started is when the current gopls started; base is its lowest
	// resident memory at a renewal's moment once settled, 0 before; recycles counts the goplses
	// replaced for their memory; limit is recycleLimit and the settling
	// recycleSettle, unless tests set limit or noSettle (see recycle.go).
	started  time.Time
	base     int64
	recycles int
	limit    func(base int64) int64
	noSettle bool
	// holdUntil ends the current wait for the requests in flight to
	// drain; drained is closed when they have.
	holdUntil time.Time
	drained   chan struct{}
}

// drainWait bounds how long a new request waits, once a renewal is due,
// for the requests in flight to end; drainRest is how long requests then
// go unheld before the next wait. With several sessions calling at once
// the client is seldom without a request in flight (a one-hour soak with
// four sessions saw gopls grow again after its first 20 minutes), so a
// due renewal holds new requests back briefly to make the moment.
const (
	drainWait = 2 * time.Second
	drainRest = 10 * time.Second
)

// beginRequest counts a request in flight, after waiting (up to
// drainWait) for the others to end if a renewal is due; the returned
// function ends it, and renews the view if that is due and it was the
// last.
func (c *Client) beginRequest(ctx context.Context) func() {
	// Nothing waits while an editor is attached: there is no renewal then.
	hold := !isEditor(ctx) && !c.hasEditors()
	r := &c.renew
	r.mu.Lock()
	for hold && r.inflight > 0 && r.dueLocked() {
		now := time.Now()
		if r.holdUntil.IsZero() || now.After(r.holdUntil.Add(drainRest)) {
			r.holdUntil = now.Add(drainWait)
		}
		if !now.Before(r.holdUntil) {
			break
		}
		if r.drained == nil {
			r.drained = make(chan struct{})
		}
		ch := r.drained
		wait := r.holdUntil.Sub(now) // read under the lock: a renewal resets it
		r.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		r.mu.Lock()
		if ctx.Err() != nil {
			break
		}
	}
	r.inflight++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.inflight--
		due := r.inflight == 0 && r.dueLocked()
		r.mu.Unlock()
		if due {
			c.renewView()
		}
		// Woken only now: a waiter woken before the renewal would begin
		// its request and so put the renewal off again.
		r.mu.Lock()
		if r.inflight == 0 && r.drained != nil {
			close(r.drained)
			r.drained = nil
		}
		r.mu.Unlock()
	}
}

func (r *renewal) dueLocked() bool {
	after := r.after
	if after == 0 {
		after = renewAfter
	}
	if r.asked && len(r.closed) > 0 {
		return true
	}
	gap := r.gap
	if gap == 0 && !r.noGap {
		gap = renewGap
	}
	return len(r.closed) >= after && time.Since(r.last) >= gap
}

// closedLocked records that gopls was told to close uri. c.docs.mu is
// held.
func (c *Client) closedLocked(uri string) {
	path, err := URIPath(uri)
	if err != nil {
		return
	}
	r := &c.renew
	r.mu.Lock()
	if r.closed == nil {
		r.closed = map[string]bool{}
	}
	r.closed[filepath.Dir(path)] = true
	r.mu.Unlock()
}

// RenewWhenQuiet asks for the view to be renewed as soon as no request is
// in flight, if any file has been closed in gopls since the last renewal:
// for a daemon whose last session has gone, so that gopls gives back what
// it keeps for the packages those sessions read. It reports whether a
// renewal was made at once.
func (c *Client) RenewWhenQuiet() bool {
	r := &c.renew
	r.mu.Lock()
	r.asked = true
	due := r.inflight == 0 && r.dueLocked()
	r.mu.Unlock()
	return due && c.renewView()
}

// renewView removes the workspace folder from gopls and adds it again,
// unless an editor is attached or no gopls runs, and reports whether it
// did. The notifications are queued like a document change, so every
// request after them reaches the new view. When gopls has grown past its
// limit it is replaced instead (recycle.go).
func (c *Client) renewView() bool {
	p := c.live()
	if c.hasEditors() || p == nil {
		return false
	}
	rss, measured := residentBytes(p.pid)
	c.docs.mu.Lock()
	r := &c.renew
	r.mu.Lock()
	// Checked again under the locks: a request may have begun, or a
	// renewal been made, since the caller looked.
	if r.inflight > 0 || !r.dueLocked() {
		r.mu.Unlock()
		c.docs.mu.Unlock()
		return false
	}
	packages := len(r.closed)
	r.closed = nil
	r.asked = false
	r.holdUntil = time.Time{}
	r.last = time.Now()
	if measured {
		if base, limit, due := r.recycleDueLocked(rss, time.Now()); due {
			r.mu.Unlock()
			c.recycleLocked(p, rss, base, limit)
			c.docs.mu.Unlock()
			return true
		}
	}
	r.renewals++
	base := r.base
	r.mu.Unlock()
	folders := c.workspaceFolders()
	c.notes.enqueue("workspace/didChangeWorkspaceFolders", map[string]any{
		"event": map[string]any{"added": []any{}, "removed": folders}})
	c.notes.enqueue("workspace/didChangeWorkspaceFolders", map[string]any{
		"event": map[string]any{"added": folders, "removed": []any{}}})
	c.viewsChanged()
	c.docs.mu.Unlock()
	if measured {
		c.log.Info(RenewalMessage, "packages", packages, "rss_mib", rss>>20, "base_mib", base>>20)
	} else {
		c.log.Info(RenewalMessage, "packages", packages)
	}
	return true
}

// RenewalMessage is what the client logs each time it renews the view,
// for those who count renewals in its log (the soak bench does).
const RenewalMessage = "renewed gopls's view: it kept the packages of closed files"

// resetRenewal clears the count for a new gopls, which keeps nothing.
func (c *Client) resetRenewal() {
	r := &c.renew
	r.mu.Lock()
	r.closed = nil
	r.asked = false
	r.last = time.Now()
	r.started = r.last
	r.base = 0
	r.mu.Unlock()
}

// Renewals reports how many times the view has been renewed.
func (c *Client) Renewals() int {
	c.renew.mu.Lock()
	defer c.renew.mu.Unlock()
	return c.renew.renewals
}

// viewsChanged forgets what was learnt of gopls's views: the caches kept
// by [Client.DiskEpoch] and [Client.LayoutEpoch] (the builds to diagnose) and the files diagnosed
// in full.
func (c *Client) viewsChanged() {
	c.files.mu.Lock()
	c.files.epoch++
	c.files.layout++
	c.files.mu.Unlock()
	c.diagnosedMu.Lock()
	c.diagnosed = nil
	c.diagnosedMu.Unlock()
}

func (c *Client) hasEditors() bool {
	c.editors.mu.Lock()
	defer c.editors.mu.Unlock()
	return len(c.editors.list) > 0
}
