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
// What gopls's growth is measured from is its lowest RSS at a renewal's
// moment once it has run for recycleSettle, not its RSS at the end of its
// load: the load's own peak (gopls diagnosing the whole workspace) is
// often the largest the process is for minutes, and is given back only
// slowly, and between two renewals 30 s apart the RSS moves by 15 % with
// what gopls has just checked. In the first soak with this, a floor taken
// from the first renewal on (a minute in) had gopls replaced at once for
// its load's peak; a size taken at one moment five minutes in was a
// local high (2.7 GB, against 2.3 GB a minute later). Waiting also
// bounds the replacements to one per recycleSettle, whatever the
// workspace. Where the RSS cannot be read (residentBytes) gopls is never
// replaced for its memory.

// recycleSettle is how long a gopls runs before its size counts.
const recycleSettle = 5 * time.Minute

// recycleLimit returns the resident memory above which a gopls whose
// lowest since it settled was base is replaced: half as much again, and
// at least 512 MiB more, so that a small workspace's gopls, whose RSS
// moves by half with what it has just checked, is not restarted for a
// few hundred MB. On GOROOT/src under the soak's four sessions (a lowest of 2.3 GB
// after five minutes) that is 3.4 GB, which the 45-minute soak at
// 6e744b7 passed at about 25 minutes and ended at 5.4 GB.
func recycleLimit(base int64) int64 {
	return max(base+base/2, base+512<<20)
}

// RecycleMessage is what the client logs each time it replaces gopls for
// its memory, for those who count them in its log (the soak bench does).
const RecycleMessage = "replacing gopls for its memory: it grew well past its lowest once settled"

// recycleDueLocked records gopls's resident memory at a renewal's moment
// and reports whether it is now past the limit, with the lowest since it
// settled and the limit it was judged against (0 while gopls settles).
// r.mu is held.
func (r *renewal) recycleDueLocked(rss int64, now time.Time) (base, limit int64, due bool) {
	if !r.noSettle && now.Sub(r.started) < recycleSettle {
		return 0, 0, false
	}
	if r.base == 0 || rss < r.base {
		r.base = rss
	}
	of := recycleLimit
	if r.limit != nil {
		of = r.limit
	}
	limit = of(r.base)
	return r.base, limit, rss > limit
}

// recycleLocked asks the supervisor to replace p, and logs why. It never
// waits: a request already made for p is enough. c.docs.mu is held, which
// the supervisor's start of the next gopls takes.
func (c *Client) recycleLocked(p *process, rss, base, limit int64) {
	select {
	case c.recycle <- p:
	default:
		return
	}
	c.log.Info(RecycleMessage, "pid", p.pid, "rss_mib", rss>>20, "base_mib", base>>20, "limit_mib", limit>>20)
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
		c.failedStart(err)
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
