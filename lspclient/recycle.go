package lspclient

import (
	"time"
)

// A renewal (renew.go) gives back the packages of once-open files, but
// not everything gopls's process holds: under four sessions calling for
// 45 minutes, with a renewal every 30 s, gopls's RSS still went from 2.7
// GB at 8 minutes to 5.4 GB (BENCHMARKS.md, table 12), while a new gopls
// on the same workspace starts from its file cache at the level it had
// once loaded. What grows across views was not found in gopls; what ends
// it whatever it is, is a new process. So at a renewal's moment (no
// request in flight, no editor attached) the client looks at gopls's
// resident memory, and when it has grown well past the lowest it had at
// such a moment, it replaces gopls instead of renewing its view: the
// supervisor stops it politely and starts another, which is sent every
// open document (as after a crash, but counted as no crash). Requests
// made meanwhile wait for the new gopls, as they do during a renewal's
// reload; the new one loads from gopls's file cache, a few seconds on
// GOROOT/src, about what a renewal's reload costs.
//
// The lowest RSS at a renewal's moment is the floor rather than the RSS
// at the end of the load, because the first load's own peak (gopls
// diagnosing the whole workspace) is often the largest the process ever
// is, and is given back only slowly. Where the RSS cannot be read
// (residentBytes) gopls is never replaced for its memory.

// recycleLimit returns the resident memory above which a gopls whose
// floor was floor is replaced: half as much again, and at least 512 MiB
// more, so that a small workspace's gopls, whose RSS moves by half with
// what it has just checked, is not restarted for a few hundred MB. On
// GOROOT/src (a floor of about 1.7 GB) that is 2.6 GB, which the 45-minute
// soak passed at about 10 minutes.
func recycleLimit(floor int64) int64 {
	return max(floor+floor/2, floor+512<<20)
}

// RecycleMessage is what the client logs each time it replaces gopls for
// its memory, for those who count them in its log (the soak bench does).
const RecycleMessage = "replacing gopls for its memory: it grew well past its lowest since it started"

// recycleDueLocked records gopls's resident memory at a renewal's moment
// and reports whether it is now past the limit, with the floor and the
// limit it was judged against. r.mu is held.
func (r *renewal) recycleDueLocked(rss int64) (floor, limit int64, due bool) {
	if r.floor == 0 || rss < r.floor {
		r.floor = rss
	}
	of := recycleLimit
	if r.limit != nil {
		of = r.limit
	}
	limit = of(r.floor)
	return r.floor, limit, rss > limit
}

// recycleLocked asks the supervisor to replace p, and logs why. It never
// waits: a request already made for p is enough. c.docs.mu is held, which
// the supervisor's start of the next gopls takes.
func (c *Client) recycleLocked(p *process, rss, floor, limit int64) {
	select {
	case c.recycle <- p:
	default:
		return
	}
	c.log.Info(RecycleMessage, "pid", p.pid, "rss_mib", rss>>20, "floor_mib", floor>>20, "limit_mib", limit>>20)
}

// replace stops p, which the client asked to be replaced for its memory,
// and starts the next gopls. Unlike retire, it counts no crash: requests
// wait for the new gopls without a backoff. It returns nil if no gopls
// could be started before Close.
func (c *Client) replace(p *process) *process {
	c.mu.Lock()
	if c.cur == p {
		c.cur = nil
	}
	c.broadcastLocked()
	c.mu.Unlock()
	c.diags.reset()
	c.prog.reset()
	p.stop(c.log, true)
	began := time.Now()
	next, err := c.launch(c.life)
	if err != nil {
		if c.life.Err() != nil {
			return nil
		}
		// A failed start counts as a death, as in relaunch.
		c.mu.Lock()
		c.restarts++
		c.lastExit = err.Error()
		c.deaths = append(c.deaths, time.Now())
		c.mu.Unlock()
		c.log.Warn("gopls failed to start", "error", err)
		return c.relaunch()
	}
	c.renew.mu.Lock()
	c.renew.recycles++
	c.renew.mu.Unlock()
	c.log.Info("gopls replaced", "old_pid", p.pid, "pid", next.pid, "took", time.Since(began).Round(time.Millisecond))
	return next
}

// Recycles reports how many times gopls has been replaced for its memory.
func (c *Client) Recycles() int {
	c.renew.mu.Lock()
	defer c.renew.mu.Unlock()
	return c.renew.recycles
}
