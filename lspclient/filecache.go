package lspclient

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// The file cache keeps the text of files read from disk between calls, so
// that a call does not read again a file that has not changed. It is
// exact where the watcher sees every change: a file whose directory, and
// every directory above it up to the root, is watched, and which is
// neither a symbolic link nor one of several hard links, is kept until the
// watcher reports a change to it (the barrier before each request collects
// them). Any other file is kept with its size, time and identity, checked
// with stat on each use, and only when its time is older than racyWindow
// at the time it was read: a change after that always shows in the time,
// however coarse the file system keeps it.

// maxCachedBytes bounds the text the cache keeps; the least recently
// used files go first.
const maxCachedBytes = 8 << 20

// FileTimeSlack is longer than the coarsest file time granularity in use
// (two seconds on FAT; the kernel's coarse clock, a few milliseconds, on
// Linux): a file's modification time may lie that much before the write
// that set it.
const FileTimeSlack = 2 * time.Second

// fineTimeSlack is how far before a write the modification time may lie
// on a file system that keeps fine times: a tick of the clock it is taken
// from (Linux's coarse clock, a jiffy, up to 10 ms; Windows's, 15.6 ms).
const fineTimeSlack = 50 * time.Millisecond

// ModifiedSince reports whether the file whose information is fi may
// have been written at or after t, by its modification time: a time kept
// to the second (or coarser: two seconds on FAT) may lie up to
// FileTimeSlack before the write that set it, a finer one a clock tick.
// A time with a fraction of a second is taken for a file system that
// keeps fine times.
func ModifiedSince(fi os.FileInfo, t time.Time) bool {
	slack := FileTimeSlack
	if fi.ModTime().Nanosecond() != 0 {
		slack = fineTimeSlack
	}
	return !fi.ModTime().Before(t.Add(-slack))
}

// racyWindow is how recent a file's time must be for the cache not to
// trust it (see above).
const racyWindow = FileTimeSlack

// maxTracked bounds the paths whose last change the cache remembers (see
// [Client.ChangedSince]); past it, every earlier epoch counts as changed.
const maxTracked = 1 << 16

type fileCache struct {
	// racy is racyWindow; tests shorten it.
	racy    time.Duration
	mu      sync.Mutex
	entries map[string]*cachedFile
	bytes   int
	// epoch counts invalidations, so that a text read before one is not
	// kept after it.
	epoch uint64
	// layout counts the invalidations that may change the tree's
	// modules and builds: a layout file, a directory, lost events, a new
	// view (see [Client.LayoutEpoch]).
	layout uint64
	clock  uint64 // for least recently used
	// changedAt is the epoch of each path's last reported change; for an
	// epoch before floor, which lost events, gone directories and the
	// bound move, any path may have changed.
	changedAt map[string]uint64
	floor     uint64
}

type cachedFile struct {
	text string
	// watched means the watcher vouches for the file (see above); else
	// stamp is compared on each use.
	watched bool
	stamp   os.FileInfo
	used    uint64
}

// ReadFile returns the text of the file at path (absolute and clean), from
// the cache when it holds the file as it is on disk now, else from read,
// whose result it keeps. Like a request, it first collects the changes
// made on disk, so the text is never older than the call.
func (c *Client) ReadFile(path string, read func(path string) ([]byte, error)) (string, error) {
	w := c.watch
	w.barrier()
	watched := w.vouches(path)
	fc := &c.files
	fc.mu.Lock()
	e := fc.entries[path]
	epoch := fc.epoch
	if e != nil && e.watched && watched {
		fc.clock++
		e.used = fc.clock
		fc.mu.Unlock()
		return e.text, nil
	}
	fc.mu.Unlock()

	if e != nil {
		if fi, err := os.Stat(path); err == nil && sameStamp(e.stamp, fi) {
			fc.mu.Lock()
			fc.clock++
			e.used = fc.clock
			fc.mu.Unlock()
			return e.text, nil
		}
	}
	// The stamp is taken before the read: a change during the read makes
	// it differ from the file afterwards.
	lfi, lerr := os.Lstat(path)
	stamp := lfi
	if lerr == nil && lfi.Mode()&os.ModeSymlink != 0 {
		stamp, lerr = os.Stat(path)
	}
	read0 := time.Now()
	data, err := read(path)
	if err != nil {
		fc.forget(path)
		return "", err
	}
	text := string(data)
	switch {
	case lerr != nil, len(text) > maxCachedBytes/4:
		return text, nil
	}
	exact := watched && lfi.Mode().IsRegular() && singleLink(lfi)
	if !exact && read0.Sub(stampTime(stamp)) < fc.racy {
		// Changed just now: a change to come may keep this time.
		fc.forget(path)
		return text, nil
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if exact && fc.epoch != epoch {
		// Something changed meanwhile, maybe this file: do not keep it.
		return text, nil
	}
	if old := fc.entries[path]; old != nil {
		fc.bytes -= len(old.text)
	}
	if fc.entries == nil {
		fc.entries = make(map[string]*cachedFile)
	}
	fc.clock++
	fc.entries[path] = &cachedFile{text: text, watched: exact, stamp: stamp, used: fc.clock}
	fc.bytes += len(text)
	fc.evictLocked()
	return text, nil
}

// sameStamp reports whether a file still has the size, times, mode and
// identity it had. The change time, where known, catches a file whose
// modification time was set back.
func sameStamp(old, now os.FileInfo) bool {
	return old.Size() == now.Size() && old.ModTime().Equal(now.ModTime()) && changeTime(old).Equal(changeTime(now)) &&
		old.Mode() == now.Mode() && os.SameFile(old, now)
}

// stampTime is the later of a file's modification and change times.
func stampTime(fi os.FileInfo) time.Time {
	if ct := changeTime(fi); ct.After(fi.ModTime()) {
		return ct
	}
	return fi.ModTime()
}

func (fc *fileCache) evictLocked() {
	for fc.bytes > maxCachedBytes && len(fc.entries) > 0 {
		var oldest string
		var used uint64
		for p, e := range fc.entries {
			if oldest == "" || e.used < used {
				oldest, used = p, e.used
			}
		}
		fc.bytes -= len(fc.entries[oldest].text)
		delete(fc.entries, oldest)
	}
}

func (fc *fileCache) forget(path string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if e := fc.entries[path]; e != nil {
		fc.bytes -= len(e.text)
		delete(fc.entries, path)
	}
}

// changed drops what the watcher reports changed: files, and everything
// below directories that went away; all when events were lost.
func (fc *fileCache) changed(paths []string, dirsGone []string, all bool) {
	layout := all || len(dirsGone) > 0 || slices.ContainsFunc(paths, layoutPath)
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.epoch++
	if layout {
		fc.layout++
	}
	if all || len(dirsGone) > 0 || len(fc.changedAt)+len(paths) > maxTracked {
		fc.changedAt, fc.floor = nil, fc.epoch
	} else if len(paths) > 0 {
		if fc.changedAt == nil {
			fc.changedAt = make(map[string]uint64)
		}
		for _, p := range paths {
			fc.changedAt[p] = fc.epoch
		}
	}
	if all {
		clear(fc.entries)
		fc.bytes = 0
		return
	}
	for _, p := range paths {
		if e := fc.entries[p]; e != nil {
			fc.bytes -= len(e.text)
			delete(fc.entries, p)
		}
	}
	if len(dirsGone) == 0 {
		return
	}
	for p, e := range fc.entries {
		for _, d := range dirsGone {
			if within(d, p) {
				fc.bytes -= len(e.text)
				delete(fc.entries, p)
				break
			}
		}
	}
}

// packagesChanged moves the layout for a package made or ended by its
// directory's first Go file or its last one gone (see watcher.barrier),
// which no path's name tells.
func (fc *fileCache) packagesChanged() {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.layout++
}

// layoutFiles are the files that say what the modules and builds of the
// tree are: what the go command reads to find them, and vendor/'s manifest.
var layoutFiles = map[string]bool{"go.mod": true, "go.work": true, "go.sum": true, "go.work.sum": true, "modules.txt": true}

// layoutPath reports whether a change to path may change the layout (see
// [Client.LayoutEpoch]): it is one of layoutFiles, or a directory. A Go
// file's edit does not, nor does the temporary file an editor or a tool
// writes and renames over the file it saves.
func layoutPath(path string) bool {
	if layoutFiles[filepath.Base(path)] {
		return true
	}
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// LayoutEpoch is [Client.DiskEpoch] for what depends on the layout of the
// tree, not on what its Go files say: the number moves when a go.mod,
// go.work, go.sum or vendor/modules.txt changes, a directory comes or
// goes, events are lost or gopls's view is renewed, and not for other
// files. What gopls's views are and which modules the tree holds can be
// kept while it stays; a caller that also keeps a file's name checks that
// the file is still there.
func (c *Client) LayoutEpoch() uint64 {
	c.watch.barrier()
	c.files.mu.Lock()
	defer c.files.mu.Unlock()
	return c.files.layout
}

// ChangedSince reports whether the file at path (absolute and clean) has
// changed on disk since the disk epoch since (see [Client.DiskEpoch]),
// and whether that answer is known: only for a regular file of one link
// whose directory the watcher vouches for, as the file cache trusts
// (above); else the caller must judge by the file's time. It collects
// the changes made so far first, as a request does. A write whose time
// the file system keeps coarsely is told apart from one before since
// here, where a modification time cannot.
func (c *Client) ChangedSince(path string, since uint64) (changed, known bool) {
	w := c.watch
	w.barrier()
	lfi, err := os.Lstat(path)
	if err != nil || !w.vouches(path) || !lfi.Mode().IsRegular() || !singleLink(lfi) {
		return false, false
	}
	fc := &c.files
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if since < fc.floor {
		return true, true
	}
	// The file, or a directory above it made anew (whose files came with
	// no event of their own).
	for p := path; ; p = filepath.Dir(p) {
		if fc.changedAt[p] > since {
			return true, true
		}
		if p == w.root || filepath.Dir(p) == p {
			return false, true
		}
	}
}

// vouches reports whether the watcher sees every change to the file at
// path: its directory and every one above it up to the root are watched
// under their own names.
func (w *watcher) vouches(path string) bool {
	return w.vouchesDir(filepath.Dir(path))
}

// vouchesDir reports whether the watcher sees every change to the entries
// of dir (see vouches).
func (w *watcher) vouchesDir(dir string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fs == nil {
		return false
	}
	if !within(w.root, dir) {
		return false
	}
	for d := dir; ; d = filepath.Dir(d) {
		if !w.fs.exact(d) {
			return false
		}
		if d == w.root {
			return true
		}
	}
}

// Watched reports whether the watcher sees every change in directory dir
// (absolute and clean): a change there moves the generation at the next
// barrier. It is false off Linux, outside the root, past the watch
// budget, and where a directory on the way is known by another name.
func (c *Client) Watched(dir string) bool {
	return c.watch.vouchesDir(dir)
}

// DiskEpoch collects the changes made on disk (as every request does
// first) and returns a number that moves whenever the watcher reports any
// change at all, with whether the watcher sees every change in directory
// dir (see Watched). While both hold, nothing in dir, nor on the way to it
// from the root, has changed: a caller may keep what it found out about
// the files there (that a path names a regular file, say), keyed by it.
func (c *Client) DiskEpoch(dir string) (epoch uint64, watched bool) {
	c.watch.barrier()
	watched = c.watch.vouchesDir(dir)
	c.files.mu.Lock()
	defer c.files.mu.Unlock()
	return c.files.epoch, watched
}
