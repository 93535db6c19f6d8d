package lspclient

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// pollRacy is how close to the moment a file or directory was looked at
// its modification time may be and still hide a later change: file systems
// keep times in ticks (a few milliseconds on Linux, a second or two on some
// others), so a change in the same tick as the look keeps the time.
const pollRacy = 2 * time.Second

// A poller is the portable watcher: no descriptor per directory, but a scan
// of the tree that each barrier waits for. It is the strategy off Linux,
// and on Linux when inotify cannot be had or its watches run out.
//
// A scan compares what it finds with what the last one found: a directory
// whose modification time is unchanged (and not recent) has the same
// entries, so only its Go and module files are looked at (one lstat each);
// others are read again. It holds one descriptor at a time (reading a
// directory, or hashing a file changed just now), whatever the tree's
// size. The barrier's cost is one scan: about a microsecond per file (see
// BENCHMARKS.md); idle, nothing runs.
//
// The scan skips what the go command ignores (testdata, vendor, names
// starting with . or _) and does not follow links to directories.
type poller struct {
	root string

	mu      sync.Mutex
	cond    *sync.Cond
	started uint64 // scans begun
	done    uint64 // the last scan finished
	closed  bool
	pending []fsEvent
	// extra are directories added that the tree's scan skips (a document
	// opened in testdata, say); they are scanned without descending.
	extra map[string]bool

	// Owned by the scanning goroutine (or by newPoller before it runs).
	state  map[string]*dirState
	out    []fsEvent     // events of the scan under way
	req    chan struct{} // a barrier asks for a scan
	stop   chan struct{}
	exited chan struct{} // closed when the scanning goroutine has returned
}

type dirState struct {
	mtime   time.Time
	racy    bool // its time was too recent to vouch for its entries
	files   map[string]fileStamp
	subdirs map[string]bool
}

type fileStamp struct {
	size  int64
	mtime time.Time
	mode  os.FileMode
	// hash is the content's, kept while the time is too recent to tell a
	// change in the same tick.
	hash []byte
}

// newPoller scans root once, as the baseline the first barrier compares
// with, and starts the goroutine that scans on request.
func newPoller(root string) *poller {
	p := &poller{root: root, extra: map[string]bool{}, state: map[string]*dirState{},
		req: make(chan struct{}, 1), stop: make(chan struct{}), exited: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	p.scan()
	p.out = nil
	go p.loop()
	return p
}

func (p *poller) loop() {
	defer close(p.exited)
	for {
		select {
		case <-p.stop:
			return
		case <-p.req:
		}
		p.mu.Lock()
		p.started++
		gen := p.started
		extra := make([]string, 0, len(p.extra))
		for d := range p.extra {
			extra = append(extra, d)
		}
		p.mu.Unlock()

		p.scan(extra...)

		p.mu.Lock()
		p.pending = append(p.pending, p.out...)
		p.out = nil
		p.done = gen
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

// drain waits for a scan that began after it was called, then returns the
// changes found since the last drain.
func (p *poller) drain() ([]fsEvent, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	want := p.started + 1
	select {
	case p.req <- struct{}{}:
	default: // a request is pending; the scan it starts is after now
	}
	for p.done < want && !p.closed {
		p.cond.Wait()
	}
	evs := p.pending
	p.pending = nil
	return evs, false
}

func (p *poller) add(dir string) error {
	if p.watching(dir) {
		return nil
	}
	p.mu.Lock()
	p.extra[dir] = true
	p.mu.Unlock()
	return nil
}

// watching reports whether dir is scanned: inside the root and not a
// directory the scan skips, or added.
func (p *poller) watching(dir string) bool {
	if within(p.root, dir) {
		skipped := false
		for d := dir; d != p.root; d = filepath.Dir(d) {
			if skipDir(filepath.Base(d)) {
				skipped = true
				break
			}
		}
		if !skipped {
			return true
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.extra[dir]
}

// exact is false: a scan sees only Go and module files, so the file cache
// must check the others itself.
func (p *poller) exact(string) bool { return false }

// count is the directories added beside the tree: the tree costs no watch.
func (p *poller) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.extra)
}

func (p *poller) dirs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []string{p.root}
	for d := range p.extra {
		out = append(out, d)
	}
	return out
}

// close stops the scanning goroutine and waits for it to return.
func (p *poller) close() error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.stop)
		p.cond.Broadcast()
	}
	p.mu.Unlock()
	<-p.exited
	return nil
}

// scan walks the tree and the extra directories, appending to p.out what
// changed since the last scan.
func (p *poller) scan(extra ...string) {
	now := time.Now()
	seen := make(map[string]bool, len(p.state))
	p.scanDir(p.root, true, now, seen)
	for _, d := range extra {
		p.scanDir(d, false, now, seen)
	}
	for dir := range p.state {
		if !seen[dir] {
			p.dropDir(dir)
		}
	}
}

// scanDir compares dir with its last state. seen collects the directories
// found.
func (p *poller) scanDir(dir string, recurse bool, now time.Time, seen map[string]bool) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return
	}
	seen[dir] = true
	st := p.state[dir]
	if st == nil {
		st = &dirState{files: map[string]fileStamp{}, subdirs: map[string]bool{}}
		p.state[dir] = st
		st.racy = true // never read
	}
	reread := st.racy || !fi.ModTime().Equal(st.mtime)
	var fresh map[string]bool // files found by this scan
	st.mtime = fi.ModTime()
	st.racy = now.Sub(fi.ModTime()) < pollRacy
	if reread {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		files := map[string]bool{}
		subdirs := map[string]bool{}
		for _, e := range entries {
			name := e.Name()
			switch {
			case e.IsDir():
				if recurse && !skipDir(name) {
					subdirs[name] = true
				}
			case e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0:
				if relevantFile(name) {
					files[name] = true
				}
			}
		}
		for name := range st.files {
			if !files[name] {
				delete(st.files, name)
				p.out = append(p.out, fsEvent{path: filepath.Join(dir, name), kind: fileDeleted})
			}
		}
		for name := range files {
			if _, ok := st.files[name]; !ok {
				path := filepath.Join(dir, name)
				if s, ok := stampFile(path, now); ok {
					st.files[name] = s
					if fresh == nil {
						fresh = map[string]bool{}
					}
					fresh[name] = true
					p.out = append(p.out, fsEvent{path: path, kind: fileCreated})
				}
			}
		}
		for name := range st.subdirs {
			if !subdirs[name] {
				p.dropDir(filepath.Join(dir, name))
			}
		}
		st.subdirs = subdirs
	}
	for name, old := range st.files {
		path := filepath.Join(dir, name)
		if fresh[name] {
			continue
		}
		s, ok := stampFile(path, now)
		switch {
		case !ok:
			delete(st.files, name)
			p.out = append(p.out, fsEvent{path: path, kind: fileDeleted})
		case s.size != old.size || !s.mtime.Equal(old.mtime) || s.mode != old.mode:
			st.files[name] = s
			p.out = append(p.out, fsEvent{path: path, kind: fileChanged})
		case old.hash != nil:
			// Same time as when it was last read, which was within a
			// tick of that time: the content tells. The new stamp keeps
			// a hash only while its time is still recent.
			h := s.hash
			if h == nil {
				h = hashFile(path)
			}
			st.files[name] = s
			if !bytes.Equal(h, old.hash) {
				p.out = append(p.out, fsEvent{path: path, kind: fileChanged})
			}
		}
	}
	for name := range st.subdirs {
		sub := filepath.Join(dir, name)
		if p.state[sub] == nil {
			// New: everything in it is new (no event for the directory
			// itself, whose files are reported one by one).
			p.scanNew(sub, now, seen)
			continue
		}
		p.scanDir(sub, true, now, seen)
	}
}

// scanNew records a directory found since the last scan and reports its
// files as created.
func (p *poller) scanNew(dir string, now time.Time, seen map[string]bool) {
	p.scanDir(dir, true, now, seen)
}

// dropDir forgets dir and everything below it, and reports it gone.
func (p *poller) dropDir(dir string) {
	if _, ok := p.state[dir]; !ok {
		return
	}
	for d := range p.state {
		if within(dir, d) {
			delete(p.state, d)
		}
	}
	p.out = append(p.out, fsEvent{path: dir, kind: fileDeleted, dir: true})
}

// stampFile returns what a scan compares of a file (through a link), with
// its content's hash when its time is recent.
func stampFile(path string, now time.Time) (fileStamp, bool) {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return fileStamp{}, false
	}
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
	// Only a regular file is read: a link to a FIFO or a device is
	// stamped, so that it is reported, but reading it could block the
	// scan or never end (see OpenRegular).
	if now.Sub(s.mtime) < pollRacy && fi.Mode().IsRegular() {
		s.hash = hashFile(path)
	}
	return s, true
}

// hashFile returns the hash of a regular file's content, or an empty
// (non-nil) one if it cannot be read or is not a regular file.
func hashFile(path string) []byte {
	data, err := ReadRegular(path, maxDocumentBytes)
	if err != nil {
		return []byte{}
	}
	sum := sha256.Sum256(data)
	return sum[:]
}

// errWatchLimit is the kernel refusing another watch: under "auto" the
// watcher then switches to the poller.
var errWatchLimit = errors.New("no inotify watches left")

// testNoInotify makes inotify unavailable, as in a container that denies
// it; tests set it to check the fallback.
var testNoInotify bool
