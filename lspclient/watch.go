package lspclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxWatches bounds the directories watched, far below the usual kernel
// limit, so that a huge tree cannot exhaust it for other programs. Open
// documents in directories beyond the bound are checked with stat instead.
var maxWatches = 4096 // a variable so that a test can run out of watches

// LSP FileChangeType values.
const (
	fileCreated = 1
	fileChanged = 2
	fileDeleted = 3
)

// A watcher keeps gopls's view of the disk current. gopls reads files it
// has no open document for from disk, but caches them until told they
// changed; and an open document opened from disk would hide a newer file.
//
// Before each request to gopls, barrier collects what changed on disk
// since the last request and tells gopls: workspace/didChangeWatchedFiles
// for the files, and a change (or a close) of documents opened from disk,
// so that gopls reads the new content. The cost is O(changed files): on
// Linux, the kernel queues inotify events as files are written, so a
// non-blocking read of the queue is a true barrier; elsewhere only the
// open documents are checked, with stat. The notifications are queued
// under the watcher's lock and written after it (see notes.go); the
// request that follows waits for them.
//
// Go files in directories that held no package make gopls load new
// packages (see loadPackages). That happens apart from the barrier: a
// request about files gopls knows goes on at once, and only requests
// marked [WorkspaceWide] wait for the loads (see awaitLoads).
//
// Watched are the workspace root, the directories of the workspace's
// packages and their parents up to the root (from gopls.packages once the
// workspace is loaded), the directories of the documents opened from disk,
// and directories created under watched ones.
type watcher struct {
	c    *Client
	root string
	log  *slog.Logger

	// mu serialises barriers, so that a request follows the notifications
	// for every change made before it was sent: each barrier drains the
	// events and queues their notifications in one critical section. It is
	// never held while anything is sent to gopls.
	mu sync.Mutex
	fs fsWatch // nil when the platform has no watcher
	// stamps are the sizes and times of open documents whose directory is
	// not watched, checked with stat at each barrier.
	stamps map[string]stamp
	full   bool // maxWatches was reached (logged once)
	// pkgDirs are the directories known to hold a package; a Go file
	// created elsewhere starts a new one (see loadPackages). pkgMu guards
	// it alone, and is taken last: the documents ask of it under their
	// own lock (see Client.quietLocked), which is taken under w.mu.
	pkgMu   sync.Mutex
	pkgDirs map[string]bool
	// loads are the batches of new packages gopls is loading, oldest
	// first (see loadPackages).
	loads []*loadBatch
	// stopped is set when the watcher is stopped: no load starts after.
	stopped bool
	// strategy is Options.Watch: under "auto", running out of inotify
	// watches switches to the poller.
	strategy string

	// ready is closed once the package directories are watched (or
	// could not be listed).
	ready  chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup
}

// A fsWatch is the platform's directory watcher.
type fsWatch interface {
	// add watches the entries of dir (not its subdirectories).
	add(dir string) error
	watching(dir string) bool
	// exact reports whether dir is watched and its events are reported
	// under its name (not under another name of the same directory).
	exact(dir string) bool
	count() int
	dirs() []string
	// drain returns the events queued since the last call, without
	// waiting; overflow means some were lost.
	drain() (events []fsEvent, overflow bool)
	close() error
}

// fsEvent is one change in a watched directory.
type fsEvent struct {
	path string
	kind int // fileCreated, fileChanged or fileDeleted
	dir  bool
}

type stamp struct {
	path  string
	size  int64
	mtime time.Time
}

// WatchStrategies are the values of [Options.Watch].
var WatchStrategies = []string{"auto", "inotify", "poll", "off"}

// startWatching starts the watcher of c's root. A failure to watch is
// logged, not fatal: open documents are then checked with stat.
func (c *Client) startWatching() {
	w := &watcher{c: c, root: c.opts.Root, log: c.log, stamps: make(map[string]stamp), pkgDirs: make(map[string]bool), ready: make(chan struct{})}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.strategy = c.opts.Watch
	if w.strategy == "" {
		w.strategy = "auto"
	}
	var fs fsWatch
	var err error
	switch w.strategy {
	case "off":
	case "poll":
		fs = newPoller(w.root)
	default:
		fs, err = newFSWatch()
		switch {
		case err == nil:
		case w.strategy == "auto":
			c.log.Info("scanning for changes on disk at each call", "reason", err)
			fs, err = newPoller(w.root), nil
		default:
			c.log.Warn("cannot watch files; changes on disk are seen for open documents only", "error", err)
		}
	}
	w.fs = fs
	c.log.Debug("watching for changes on disk", "strategy", w.strategy, "kind", fsKind(fs))
	if fs != nil {
		w.addDir(w.root)
		w.bg.Go(w.watchPackages)
	} else {
		close(w.ready)
	}
	c.watch = w
}

// stopWatching ends the watcher's goroutine and releases its descriptor.
func (c *Client) stopWatching() {
	w := c.watch
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.cancel()
	w.bg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fs != nil {
		_ = w.fs.close()
		w.fs = nil
	}
}

// watchPackages adds the directories of the workspace packages, once
// gopls has loaded them.
func (w *watcher) watchPackages() {
	defer close(w.ready)
	if err := w.c.WaitLoaded(w.ctx); err != nil {
		return
	}
	var res struct {
		Module map[string]struct {
			Path  string
			GoMod string
		}
		Packages []struct {
			Path       string
			ModulePath string
			ForTest    string
		}
	}
	args := map[string]any{"Files": []string{FileURI(w.root)}, "Recursive": true}
	if err := w.c.ExecuteCommand(w.ctx, "gopls.packages", args, &res); err != nil {
		w.log.Debug("listing packages to watch", "error", err)
		return
	}
	modDirs := map[string]string{}
	for path, m := range res.Module {
		if p, err := URIPath(m.GoMod); err == nil {
			modDirs[path] = filepath.Dir(p)
		}
	}
	dirs := map[string]bool{}
	for dir := range mapValues(modDirs) {
		dirs[dir] = true
	}
	for _, p := range res.Packages {
		modDir, ok := modDirs[p.ModulePath]
		if !ok && p.ModulePath == "" && p.ForTest == "" {
			// gopls names no module for the standard library's packages
			// when the root is GOROOT/src (module std), whose import paths
			// are their directories under it.
			if dir := filepath.Join(w.root, filepath.FromSlash(p.Path)); isDir(dir) {
				dirs[dir] = true
			}
			continue
		}
		if !ok {
			continue
		}
		rel, ok := strings.CutPrefix(p.Path, p.ModulePath+"/")
		switch {
		case p.Path == p.ModulePath:
			rel = ""
		case !ok && p.ModulePath == "std":
			rel = p.Path // the standard library's paths have no module prefix
		case !ok:
			continue
		}
		dirs[filepath.Join(modDir, filepath.FromSlash(rel))] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for dir := range dirs {
		w.pkgMu.Lock()
		w.pkgDirs[dir] = true
		w.pkgMu.Unlock()
		// The parents too, so that a new package beside one is seen.
		for d := dir; within(w.root, d); d = filepath.Dir(d) {
			if w.fs == nil || w.fs.watching(d) {
				break
			}
			w.addDirLocked(d)
			if d == w.root {
				break
			}
		}
	}
	if w.fs != nil {
		w.log.Debug("watching package directories", "count", w.fs.count())
	}
}

func mapValues(m map[string]string) map[string]bool {
	out := make(map[string]bool, len(m))
	for _, v := range m {
		out[v] = true
	}
	return out
}

func (w *watcher) addDir(dir string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.addDirLocked(dir)
}

// addDirLocked watches dir if the budget allows; w.mu is held.
func (w *watcher) addDirLocked(dir string) bool {
	if w.fs == nil {
		return false
	}
	if w.fs.watching(dir) {
		return true
	}
	if _, polling := w.fs.(*poller); !polling && w.strategy == "auto" && w.fs.count() >= maxWatches {
		w.switchToPoll("the most directories allowed are watched")
		return w.fs.add(dir) == nil
	}
	if w.fs.count() >= maxWatches {
		if !w.full {
			w.full = true
			w.log.Info("watching the most directories allowed; open documents elsewhere are checked with stat", "max", maxWatches)
		}
		return false
	}
	if err := w.fs.add(dir); err != nil {
		if _, polling := w.fs.(*poller); !polling && w.strategy == "auto" && errors.Is(err, errWatchLimit) {
			w.switchToPoll(err.Error())
			return w.fs.add(dir) == nil
		}
		w.log.Debug("cannot watch directory", "dir", dir, "error", err)
		return false
	}
	return true
}

// switchToPoll replaces inotify by the poller when the system's watches
// run out. The poller's first scan is its baseline; what inotify queued
// before it is kept for the next barrier, so that nothing is missed in
// between. w.mu is held.
func (w *watcher) switchToPoll(reason string) {
	w.log.Info("switching to scanning for changes on disk at each call", "reason", reason)
	p := newPoller(w.root)
	events, overflow := w.fs.drain()
	if overflow {
		events = append(events, w.everything()...)
	}
	for _, d := range w.fs.dirs() {
		if !p.watching(d) {
			_ = p.add(d)
		}
	}
	_ = w.fs.close()
	p.mu.Lock()
	p.pending = append(events, p.pending...)
	p.mu.Unlock()
	w.fs = p
}

// fsKind names the watcher in the log.
func fsKind(fs fsWatch) string {
	switch fs.(type) {
	case nil:
		return "none (open documents checked with stat)"
	case *poller:
		return "poll"
	default:
		return "inotify"
	}
}

// watchDocument makes sure a change on disk to a document opened from disk
// is seen: its directory is watched, or else its size and time are
// checked at each barrier.
func (c *Client) watchDocument(uri string, overlay bool) {
	w := c.watch
	if w == nil || overlay {
		return
	}
	path, err := URIPath(uri)
	if err != nil || !within(w.root, path) {
		return
	}
	if w.addDir(filepath.Dir(path)) {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	w.mu.Lock()
	w.stamps[uri] = stamp{path: path, size: fi.Size(), mtime: fi.ModTime()}
	w.mu.Unlock()
}

// barrier tells gopls about every change on disk made before it was
// called. It never waits for other calls. Its steps, in order: what the
// file events say changed, the packages under deleted directories
// forgotten, the packages new files start, the changes of the files
// checked by size and time, and gopls told.
func (w *watcher) barrier() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var events []fsEvent
	overflow := false
	if w.fs != nil {
		events, overflow = w.fs.drain()
	}
	if len(events) == 0 && !overflow && len(w.stamps) == 0 {
		// Nothing changed: the common case, kept free of allocations.
		return
	}
	changes := changeSet{}
	dirsGone := w.eventChanges(events, overflow, changes)
	w.forgetPackagesUnder(dirsGone)
	newPackages := w.newPackages(changes)
	if len(newPackages) > 0 || packageGone(changes) {
		w.c.files.packagesChanged()
	}
	w.stampChanges(changes)
	if len(changes) == 0 {
		return
	}
	w.tell(changes, dirsGone, newPackages)
}

// A changeSet is the kind of change (fileCreated, fileChanged,
// fileDeleted) of each path a barrier reports.
type changeSet map[string]int

// add records a change of path; a file created and then changed is still
// a new file.
func (cs changeSet) add(path string, kind int) {
	if prev, ok := cs[path]; ok && prev == fileCreated && kind == fileChanged {
		return
	}
	cs[path] = kind
}

// eventChanges adds to changes what the file events say (every watched
// directory, when events were lost), watching the new directories, and
// returns the directories deleted. w.mu is held.
func (w *watcher) eventChanges(events []fsEvent, overflow bool, changes changeSet) (dirsGone []string) {
	if w.fs == nil {
		return nil
	}
	if len(events) > 0 || overflow {
		w.c.files.changed(eventPaths(events), nil, overflow)
	}
	if overflow {
		w.log.Debug("file events were lost; telling gopls every watched directory changed")
		events = append(events, w.everything()...)
	}
	for _, ev := range events {
		switch {
		case ev.dir && ev.kind == fileDeleted:
			dirsGone = append(dirsGone, ev.path)
			changes.add(ev.path, fileDeleted)
		case ev.dir:
			// A new directory: watch it, and report what is already
			// in it, which may have been written before the watch.
			w.scanNewDir(ev.path, 0, changes.add)
		case relevantFile(filepath.Base(ev.path)):
			changes.add(ev.path, ev.kind)
		}
	}
	return dirsGone
}

// forgetPackagesUnder forgets the package directories under the deleted
// ones: a package made again where one went away is a new one, to be
// loaded again. w.mu is held.
func (w *watcher) forgetPackagesUnder(dirsGone []string) {
	if len(dirsGone) == 0 {
		return
	}
	w.pkgMu.Lock()
	defer w.pkgMu.Unlock()
	for dir := range w.pkgDirs {
		for _, gone := range dirsGone {
			if within(gone, dir) {
				delete(w.pkgDirs, dir)
				break
			}
		}
	}
}

// newPackages returns a URI of a new Go file in each directory that held
// no package the watcher knew, and records those directories. w.mu is
// held.
func (w *watcher) newPackages(changes changeSet) []string {
	w.pkgMu.Lock()
	defer w.pkgMu.Unlock()
	var uris []string
	for path, kind := range changes {
		dir := filepath.Dir(path)
		if kind != fileCreated || !strings.HasSuffix(path, ".go") || w.pkgDirs[dir] {
			continue
		}
		w.pkgDirs[dir] = true
		uris = append(uris, FileURI(path))
	}
	return uris
}

// isPackageDir reports whether dir is known to hold a package of gopls's
// own views (see pkgDirs). Any lock may be held.
func (w *watcher) isPackageDir(dir string) bool {
	if w == nil {
		return false
	}
	w.pkgMu.Lock()
	defer w.pkgMu.Unlock()
	return w.pkgDirs[dir]
}

// packageGone reports whether changes delete the last Go file of a
// directory, which ends its package.
func packageGone(changes changeSet) bool {
	for path, kind := range changes {
		if kind != fileDeleted || !strings.HasSuffix(path, ".go") {
			continue
		}
		entries, err := os.ReadDir(filepath.Dir(path))
		if err != nil || !slices.ContainsFunc(entries, func(e os.DirEntry) bool {
			return !e.IsDir() && strings.HasSuffix(e.Name(), ".go")
		}) {
			return true
		}
	}
	return false
}

// stampChanges adds the changes of the documents whose directories are
// not watched, seen by their size and modification time. w.mu is held.
func (w *watcher) stampChanges(changes changeSet) {
	for uri, s := range w.stamps {
		if !w.c.known(uri) {
			delete(w.stamps, uri)
			continue
		}
		fi, err := os.Stat(s.path)
		switch {
		case err != nil:
			changes.add(s.path, fileDeleted)
			delete(w.stamps, uri)
		case fi.Size() != s.size || !fi.ModTime().Equal(s.mtime):
			changes.add(s.path, fileChanged)
			// The document stays open with the new text (see
			// refreshDocuments), and is checked again from now.
			w.stamps[uri] = stamp{path: s.path, size: fi.Size(), mtime: fi.ModTime()}
		}
	}
}

// tell gives gopls the changes: the open documents' new text, the rest as
// watched-file events, and then the new packages to load. w.mu is held.
func (w *watcher) tell(changes changeSet, dirsGone, newPackages []string) {
	if len(dirsGone) > 0 {
		w.c.files.changed(nil, dirsGone, false)
	}
	// Before gopls hears of them, or loads their packages.
	var appeared []string
	for path, kind := range changes {
		if kind != fileDeleted {
			appeared = append(appeared, path)
		}
	}
	for _, path := range w.c.shieldNew(appeared) {
		// Never told, even as gone: gopls reads every file it is told
		// changed (open(2) on a FIFO blocks it for good; a device
		// floods it), and would for a load of its package. A file it
		// knew keeps its last text in gopls; the go command no longer
		// lists it.
		delete(changes, path)
		newPackages = slices.DeleteFunc(newPackages, func(uri string) bool { return uri == FileURI(path) })
	}
	for _, path := range w.c.refreshDocuments(changes, dirsGone) {
		// gopls has the new text as the document's: the document, not
		// the disk, is what it reads while it is open, and it reads the
		// disk again when it is closed.
		delete(changes, path)
	}
	if len(changes) == 0 {
		w.c.modified()
		return
	}
	params := make([]map[string]any, 0, len(changes))
	for path, kind := range changes {
		params = append(params, map[string]any{"uri": FileURI(path), "type": kind})
	}
	// Queued, not written: the request that follows waits for it. A gopls
	// being restarted reads the disk afresh and drops it.
	w.c.notes.enqueue("workspace/didChangeWatchedFiles", map[string]any{"changes": params})
	w.c.modified()
	if len(newPackages) > 0 {
		w.loadPackages(newPackages)
	}
}

// eventPaths returns the paths of events.
func eventPaths(events []fsEvent) []string {
	paths := make([]string, len(events))
	for i, ev := range events {
		paths[i] = ev.path
	}
	return paths
}

// everything is a change of every watched directory, for when events were
// lost: gopls expands a directory to the files it knows in it.
func (w *watcher) everything() []fsEvent {
	var evs []fsEvent
	for _, d := range w.fs.dirs() {
		evs = append(evs, fsEvent{path: d, kind: fileChanged})
	}
	return evs
}

// maxNewPackages bounds the new packages loaded at one barrier; each
// costs gopls a package load.
const maxNewPackages = 32

// A loadBatch is the loading of the new packages found at one barrier.
type loadBatch struct {
	done chan struct{} // closed when every load has ended
}

// loadPackages makes gopls load the packages of Go files in new
// directories. gopls lists the workspace's packages at start (and when
// go.mod changes), so a new package would otherwise stay unknown to
// workspace-wide requests until a call names one of its files. A request
// that needs a file's package makes gopls load it, and it then stays
// known.
//
// The request is textDocument/diagnostic, because gopls handles requests
// one after another, each waiting for the one before to be answered,
// except the few that let the next ones go first: the pull of a file's
// diagnostics is one of them (a hover or gopls.list_imports would hold up
// every request behind it while gopls runs the go command). The
// diagnostics are kept by gopls, so the work serves a later diagnosis.
//
// The loads run apart, after the barrier's notifications, one at a time:
// each runs the go command, and on a machine of few cores a second one
// at once does not finish the batch sooner but slows the requests that go
// on meanwhile. The barrier, and every request that is not
// [WorkspaceWide], goes on at once. w.mu is held.
func (w *watcher) loadPackages(uris []string) {
	if len(uris) > maxNewPackages {
		w.log.Info("many new packages at once; the rest are loaded when a call names them", "loaded", maxNewPackages, "new", len(uris))
		uris = uris[:maxNewPackages]
	}
	if w.stopped {
		return
	}
	b := &loadBatch{done: make(chan struct{})}
	w.loads = append(w.loads, b)
	w.bg.Go(func() { w.load(b, uris) })
}

// load runs one batch of loads. Not through Client.Call, which would run
// the barrier again; through c.call, which waits for the barrier's
// notifications to be written first.
func (w *watcher) load(b *loadBatch, uris []string) {
	defer func() {
		w.mu.Lock()
		w.loads = slices.DeleteFunc(w.loads, func(x *loadBatch) bool { return x == b })
		w.mu.Unlock()
		// gopls knows more packages than when the answers kept under
		// the generation were given.
		w.c.modified()
		close(b.done)
	}()
	// As long as gopls works on them (the stall watch bounds each): a
	// workspace-wide call waits for them, and on a busy machine a fixed
	// bound would have it answer without the packages it waited for.
	ctx := w.ctx
	// A renewal of gopls's view (renew.go) waits for these requests too.
	defer w.c.beginRequest(ctx)()
	began := time.Now()
	for _, uri := range uris {
		params := map[string]any{"textDocument": map[string]any{"uri": uri}}
		if err := w.c.call(ctx, "textDocument/diagnostic", params, nil); err != nil {
			w.log.Debug("loading a new package", "error", err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	w.log.Debug("loaded new packages", "count", len(uris), "took", time.Since(began).Round(time.Millisecond))
}

// awaitLoads waits until the loads of new packages started so far have
// ended (each load of a batch is bounded by the stall watch), or ctx ends.
func (w *watcher) awaitLoads(ctx context.Context) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	pending := make([]chan struct{}, len(w.loads))
	for i, b := range w.loads {
		pending[i] = b.done
	}
	w.mu.Unlock()
	for _, done := range pending {
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("waiting for gopls to load new packages: %w", context.Cause(ctx))
		}
	}
	return nil
}

// scanNewDir watches a new directory and reports the files in it as
// created, descending into new subdirectories a few levels.
func (w *watcher) scanNewDir(dir string, depth int, add func(string, int)) {
	if depth > 8 || !within(w.root, dir) || skipDir(filepath.Base(dir)) || !w.addDirLocked(dir) {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			w.scanNewDir(p, depth+1, add)
		case relevantFile(e.Name()):
			add(p, fileCreated)
		}
	}
}

// refreshDocuments brings the documents opened from disk whose files
// changed up to date: gopls gets the new text as a change of the document,
// as an editor sends when it reloads a file changed on disk, or the
// document is closed, so that gopls reads the disk, when the file is gone
// or cannot be read. One held by a call is closed when the call lets go
// of it. Overlays and snippets are left alone.
//
// A change, rather than closing the document and opening it again when
// the next call names it, spares gopls a snapshot and the reload of
// package data that a closed file's change on disk costs it.
//
// It returns the paths of the documents it changed.
func (c *Client) refreshDocuments(changes map[string]int, dirsGone []string) (updated []string) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	for uri, doc := range c.docs.open {
		if doc.overlay {
			continue
		}
		path, err := URIPath(uri)
		if err != nil {
			continue
		}
		kind, changed := changes[path]
		gone := kind == fileDeleted
		for _, d := range dirsGone {
			if within(d, path) {
				changed, gone = true, true
			}
		}
		if !changed {
			continue
		}
		if doc.holders > 0 {
			c.pinLocked(uri, doc)
			continue
		}
		if !gone {
			if text, ok := readDocument(path); ok {
				if text != doc.text {
					next := doc.version + 1
					doc.version, doc.text = next, text
					c.sendDocument("textDocument/didChange", map[string]any{
						"textDocument":   map[string]any{"uri": uri, "version": next},
						"contentChanges": []any{map[string]any{"text": text}},
					})
				}
				updated = append(updated, path)
				continue
			}
		}
		// The document is no longer the disk's text: closing it changes
		// what gopls sees (see quietLocked).
		doc.stale = true
		c.closeLocked(uri)
	}
	return updated
}

// pinLocked keeps a held document's text in gopls while the file changes
// on disk: the calls holding it read that text, and gopls must answer them
// from it. A document gopls reads from disk is opened with it, before
// gopls hears of the change (the caller queues that after); either way it
// is closed when the last holder lets go. c.docs.mu is held.
func (c *Client) pinLocked(uri string, doc *document) {
	doc.stale = true
	if !doc.sent {
		c.openLocked(uri, doc)
	}
}

// maxDocumentBytes bounds a file read to refresh its document; a larger
// one is closed instead, for gopls to read.
const maxDocumentBytes = 8 << 20

// readDocument reads a regular file of at most maxDocumentBytes.
func readDocument(path string) (string, bool) {
	data, err := ReadRegular(path, maxDocumentBytes)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// relevantFile reports whether a file's change matters to gopls: Go
// files (not ones the go command ignores) and module files.
func relevantFile(name string) bool {
	switch name {
	case "go.mod", "go.sum", "go.work", "go.work.sum":
		return true
	}
	return strings.HasSuffix(name, ".go") && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_")
}

// skipDir reports directories the go command ignores.
func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// within reports whether path is dir or below it. Both must be clean.
func within(dir, path string) bool {
	if runtime.GOOS == "windows" {
		return WindowsWithin(dir, path)
	}
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Refresh tells gopls about the files changed on disk since the last
// request, as every request does first. A call runs it before taking the
// buffers it reads, so that it takes the files as they are now.
func (c *Client) Refresh() { c.watch.barrier() }

// Written tells gopls that the files at paths (absolute; true for a file
// that was created) were just written on purpose. Documents open for them
// are closed, at once or when the calls holding them let go, so that gopls
// reads the new content; overlays too, since a file is only written when
// its overlay held the text it replaced. Then gopls is told the files
// changed. The watcher would see the writes as well, but not on every
// platform nor in every directory, and the next call must see them.
func (c *Client) Written(paths map[string]bool) {
	c.watch.barrier()
	if len(paths) == 0 {
		return
	}
	params := make([]map[string]any, 0, len(paths))
	written := make([]string, 0, len(paths))
	for path := range paths {
		written = append(written, path)
	}
	c.files.changed(written, nil, false)
	c.docs.mu.Lock()
	for path, created := range paths {
		kind := fileChanged
		if created {
			kind = fileCreated
		}
		uri := FileURI(path)
		params = append(params, map[string]any{"uri": uri, "type": kind})
		doc, ok := c.docs.open[uri]
		switch {
		case !ok:
		case doc.holders > 0:
			c.pinLocked(uri, doc)
		default:
			doc.stale = true
			c.closeLocked(uri)
		}
	}
	// Queued under the document lock, after the closes.
	c.notes.enqueue("workspace/didChangeWatchedFiles", map[string]any{"changes": params})
	c.docs.mu.Unlock()
	c.modified()
}

// isDir reports whether p is a directory (through symbolic links).
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
