package lspclient

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// countingRead reads files and counts the reads.
type countingRead struct{ n atomic.Int32 }

func (r *countingRead) read(path string) ([]byte, error) {
	r.n.Add(1)
	return os.ReadFile(path)
}

// readFile is c.ReadFile that fails the test on error and checks how many
// times the file was read from disk so far.
func readFile(t *testing.T, c *Client, r *countingRead, path string, wantReads int32) string {
	t.Helper()
	text, err := c.ReadFile(path, r.read)
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", filepath.Base(path), err)
	}
	if got := r.n.Load(); got != wantReads {
		t.Errorf("after ReadFile(%s): %d reads from disk, want %d", filepath.Base(path), got, wantReads)
	}
	return text
}

// rewrite writes text to path and sets its modification time back to what
// it was: a change that size and time cannot show.
func rewrite(t *testing.T, path, text string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, text)
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// watchedShapes starts a client on a copy of the example workspace once
// its shapes directory is watched, and returns it with the root and the
// path of shapes.go; it skips where directories are not watched.
func watchedShapes(t *testing.T) (c *Client, root, path string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("directories are watched on Linux only")
	}
	root = exampleRoot(t)
	c = startClient(t, root)
	waitWatching(t, c, filepath.Join(root, "shapes"))
	return c, root, filepath.Join(root, "shapes", "shapes.go")
}

// TestFileCacheWatched checks that a file in a watched directory is read
// once while it does not change, and again after every kind of change:
// one its size and time do not show, a rename over it, its directory
// going away, and a change made while it was being read.
func TestFileCacheWatched(t *testing.T) {
	c, root, path := watchedShapes(t)
	r := &countingRead{}

	first := readFile(t, c, r, path, 1)
	if again := readFile(t, c, r, path, 1); again != first {
		t.Fatal("the cached text differs from the first read")
	}

	// Same size, same modification time.
	changed := strings.Replace(first, "TotalArea", "TotalAreX", 1)
	rewrite(t, path, changed)
	if got := readFile(t, c, r, path, 2); got != changed {
		t.Errorf("after a same-size rewrite with the old time: got the old text")
	}
	readFile(t, c, r, path, 2)

	// Another file renamed over it.
	renamed := strings.Replace(first, "TotalArea", "TotalAreY", 1)
	tmp := filepath.Join(root, "shapes", "shapes.go.tmp")
	writeFile(t, tmp, renamed)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, c, r, path, 3); got != renamed {
		t.Errorf("after a rename over the file: got the old text")
	}

	// A change made while the file was being read, reported to the
	// barrier of another call before this read ends: the text read is
	// not kept.
	before := strings.Replace(first, "TotalArea", "TotalAreW", 1)
	rewrite(t, path, before)
	during := strings.Replace(first, "TotalArea", "TotalAreZ", 1)
	racing := func(p string) ([]byte, error) {
		data, err := r.read(p)
		rewrite(t, p, during)
		c.Refresh()
		return data, err
	}
	if got, err := c.ReadFile(path, racing); err != nil || got != before {
		t.Fatalf("ReadFile while the file changes = %q..., %v; want the text read", got[:min(len(got), 20)], err)
	}
	if got := readFile(t, c, r, path, 5); got != during {
		t.Errorf("after a change during the read: got the text read before it")
	}

	// The directory goes away with the file, and comes back.
	if err := os.RemoveAll(filepath.Join(root, "shapes")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadFile(path, r.read); err == nil {
		t.Error("ReadFile of a file whose directory was removed: no error")
	}
	writeFile(t, path, first)
	if got, err := c.ReadFile(path, r.read); err != nil || got != first {
		t.Errorf("ReadFile after the directory came back = %v; want the new file", err)
	}
}

// TestFileCacheLinks checks files the watcher cannot vouch for although
// their directory is watched: a symbolic link to a file elsewhere, and a
// hard link to one. Changes made through the other name are seen.
func TestFileCacheLinks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("directories are watched on Linux only")
	}
	root := exampleRoot(t)
	c := startClient(t, root)
	c.files.racy = 0 // see TestFileCacheStamps
	waitWatching(t, c, filepath.Join(root, "shapes"))
	elsewhere := t.TempDir()
	r := &countingRead{}
	var reads int32
	for _, link := range []string{"symbolic", "hard"} {
		target := filepath.Join(elsewhere, link+".go")
		writeFile(t, target, "package shapes // "+link+"\n")
		path := filepath.Join(root, "shapes", link+".go")
		var err error
		if link == "symbolic" {
			err = os.Symlink(target, path)
		} else {
			err = os.Link(target, path)
		}
		if err != nil {
			t.Fatal(err)
		}
		reads++
		readFile(t, c, r, path, reads)
		readFile(t, c, r, path, reads)
		rewrite(t, target, "package shapes // "+link[:4]+"\n")
		reads++
		if got := readFile(t, c, r, path, reads); !strings.Contains(got, "// "+link[:4]+"\n") {
			t.Errorf("%s link: after its target changed elsewhere, got %q", link, got)
		}
	}
}

// TestFileCacheStamps checks files outside the watched tree, kept with a
// stamp checked by stat: read once while unchanged, again after a change
// that keeps the size and sets the modification time back (the change
// time shows it), and read every time while they changed too recently
// for the stamp to be trusted.
func TestFileCacheStamps(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	path := filepath.Join(t.TempDir(), "outside.go")
	writeFile(t, path, "package outside // one\n")
	r := &countingRead{}

	// A file written just now may change again within its time's
	// granularity: not kept.
	readFile(t, c, r, path, 1)
	readFile(t, c, r, path, 2)

	// Tests cannot wait for the file to age; they make every file old.
	c.files.racy = 0
	readFile(t, c, r, path, 3)
	readFile(t, c, r, path, 3)
	writeFile(t, path, "package outside // two\n")
	if got := readFile(t, c, r, path, 4); !strings.Contains(got, "two") {
		t.Errorf("after a change: got %q", got)
	}
	if runtime.GOOS == "linux" {
		rewrite(t, path, "package outside // six\n")
		if got := readFile(t, c, r, path, 5); !strings.Contains(got, "six") {
			t.Errorf("after a same-size change with the old time: got %q", got)
		}
	}
}

// TestFileCacheBounded checks that the cache lets go of the least recently
// used files beyond its byte budget.
func TestFileCacheBounded(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	c.files.racy = 0
	dir := t.TempDir()
	big := strings.Repeat("x", maxCachedBytes/4)
	r := &countingRead{}
	var paths []string
	for i := range 6 {
		p := filepath.Join(dir, string(rune('a'+i))+".txt")
		writeFile(t, p, big)
		paths = append(paths, p)
		readFile(t, c, r, p, int32(i+1))
	}
	c.files.mu.Lock()
	n, bytes := len(c.files.entries), c.files.bytes
	_, firstKept := c.files.entries[paths[0]]
	c.files.mu.Unlock()
	if bytes > maxCachedBytes || n != 4 || firstKept {
		t.Errorf("after six files of a quarter of the budget: %d kept, %d bytes, first kept %v; want the last four", n, bytes, firstKept)
	}
	readFile(t, c, r, paths[5], 6)
}

// TestWatched checks which directories the watcher vouches for: package
// directories inside the root, not a directory outside it or one reached
// under another name.
func TestWatched(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("directories are watched on Linux only")
	}
	root := exampleRoot(t)
	c := startClient(t, root)
	shapes := filepath.Join(root, "shapes")
	waitWatching(t, c, shapes)
	if !c.Watched(shapes) || !c.Watched(root) {
		t.Errorf("Watched(shapes) = %v, Watched(root) = %v; want both", c.Watched(shapes), c.Watched(root))
	}
	if c.Watched(t.TempDir()) {
		t.Error("a directory outside the root is watched")
	}
	// The same directory watched under a second name: events name only
	// one of them.
	alias := filepath.Join(root, "alias")
	if err := os.Symlink(shapes, alias); err != nil {
		t.Fatal(err)
	}
	c.watch.addDir(alias)
	if c.Watched(shapes) && c.Watched(alias) {
		t.Error("a directory watched under two names is vouched for under both")
	}
}

// TestChangedSince checks what the apply's check asks of the watcher: a
// file changed after an epoch is reported changed, whatever its time says
// (set back, as a coarse clock may), and not changed after a later
// epoch; so is a file whose directory was made anew; a link, which the
// watcher cannot vouch for, is not known.
func TestChangedSince(t *testing.T) {
	c, root, path := watchedShapes(t)
	check := func(what string, since uint64, wantChanged, wantKnown bool) {
		t.Helper()
		if changed, known := c.ChangedSince(path, since); changed != wantChanged || known != wantKnown {
			t.Errorf("%s: ChangedSince = %v, %v; want %v, %v", what, changed, known, wantChanged, wantKnown)
		}
	}
	before, _ := c.DiskEpoch(root)
	check("nothing written", before, false, true)
	rewrite(t, path, "package shapes\n") // its old time kept
	check("rewritten with its old time", before, true, true)
	after, _ := c.DiskEpoch(root)
	check("since the rewrite", after, false, true)

	// The directory removed and made again, its file with it.
	if err := os.RemoveAll(filepath.Join(root, "shapes")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "package shapes\n")
	check("its directory made anew", after, true, true)

	// A symbolic link in a watched directory: the target may change
	// through another name.
	link := filepath.Join(root, "report", "link.go")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	now, _ := c.DiskEpoch(root)
	if changed, known := c.ChangedSince(link, now); changed || known {
		t.Errorf("a symbolic link: ChangedSince = %v, %v; want it not known", changed, known)
	}
}
