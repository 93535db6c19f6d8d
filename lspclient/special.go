package lspclient

import (
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Special files: a Go file of the workspace that is not a regular file —
// a link to /dev/urandom or /dev/zero, to a FIFO, to the reading
// program's own standard streams (/proc/self/fd/1) — makes the go command
// gopls runs block forever in open(2) or read without end (go list reads
// the whole of a file whose header it cannot parse), and gopls read it
// with os.ReadFile when go list names it. Neither can be told to skip a
// file, but the go command takes an overlay: gopls's go commands run with
// GOFLAGS=-overlay naming a file that deletes them (written before gopls
// starts, rewritten as the watcher finds more), so go list never names
// them and gopls never reads them.
//
// Not an empty document open in gopls instead: gopls reads the file on
// disk when a document is opened (to tell whether it is saved), which is
// the very read to avoid. What remains: gopls passes an -overlay of its
// own, which replaces GOFLAGS's, to the go commands it runs while it holds
// open documents; a package loaded again then (after a Go file of it is
// created or deleted, say) sees the file. docs/safety.md says so.

// maxSpecialScan bounds the directories findSpecial reads, as the
// watcher's budget bounds its watches.
const maxSpecialScan = 20000

// findSpecial returns the Go files that are not regular files once links
// are followed, in every directory the go command may read: under root
// and under the modules go.work uses and go.mod replaces with local
// directories (which may lie outside root). Unlike the watcher, it looks
// in vendor (read in vendor mode), testdata and directories starting with
// _ (read when a package imports them): only directories starting with .
// are skipped, which no import path may name. Links to directories are
// not followed. Only links and files of other types are looked at
// further: a regular file costs nothing beyond its directory's read.
func findSpecial(root string) []string {
	var out []string
	dirs := append([]string{root}, localModules(root)...)
	seen := map[string]bool{}
	for n := 0; len(dirs) > 0 && n < maxSpecialScan; n++ {
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			switch {
			case e.IsDir():
				if !strings.HasPrefix(name, ".") {
					dirs = append(dirs, filepath.Join(dir, name))
				}
			case e.Type().IsRegular():
			case isGoFile(name) && isSpecial(filepath.Join(dir, name)):
				out = append(out, filepath.Join(dir, name))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// localModules returns the directories outside root that root's go.work
// uses and its go.work's and go.mod's replace directives name (a local
// path: one starting with ./, ../ or /). A directory in root is scanned
// with it. It reads only those two files, with no module parser: a
// directive it misreads costs a directory unscanned, which the watch on
// gopls's children (children_linux.go) still catches when read.
func localModules(root string) []string {
	var out []string
	for _, name := range []string{"go.work", "go.mod"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || len(data) > 1<<20 {
			continue
		}
		block := ""
		for line := range strings.Lines(string(data)) {
			line, _, _ = strings.Cut(line, "//")
			f := strings.Fields(line)
			switch {
			case len(f) == 0:
				continue
			case f[0] == ")":
				block = ""
				continue
			case len(f) == 2 && f[1] == "(":
				block = f[0]
				continue
			}
			verb := block
			if verb == "" {
				verb, f = f[0], f[1:]
			}
			var dir string
			switch {
			case verb == "use" && name == "go.work" && len(f) >= 1:
				dir = f[0]
			case verb == "replace":
				if i := slices.Index(f, "=>"); i >= 0 && i+1 < len(f) {
					dir = f[i+1]
				}
			}
			dir = strings.Trim(dir, "\"`")
			if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") && dir != "." && dir != ".." {
				continue
			}
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(root, dir)
			}
			if !within(root, filepath.Clean(dir)) {
				out = append(out, filepath.Clean(dir))
			}
		}
	}
	return out
}

// isGoFile reports whether name is a Go file the go command reads.
func isGoFile(name string) bool {
	return strings.HasSuffix(name, ".go") && relevantFile(name)
}

// isSpecial reports whether path, once links are followed, exists and is
// neither a regular file nor a directory. It never opens it.
func isSpecial(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// writeOverlayLocked writes the go command's overlay file that deletes
// the shielded files (under each name of the root they may be seen by):
// created before the first gopls starts, even with nothing to delete, so
// that a file that becomes special later can still be hidden from the go
// commands gopls runs (its settings are not sent again); rewritten whole
// (by a rename, so that no go command reads half of it) as files are
// found, removed by Close. A failure leaves the last one. c.docs.mu is
// held.
func (c *Client) writeOverlayLocked() {
	root := c.opts.Root
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	replace := map[string]string{}
	for uri := range c.docs.shields {
		p, err := URIPath(uri)
		if err != nil {
			continue
		}
		replace[p] = ""
		if rel, err := filepath.Rel(root, p); err == nil && realRoot != root && !strings.HasPrefix(rel, "..") {
			replace[filepath.Join(realRoot, rel)] = ""
		}
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return
	}
	if err := writeOverlayFile(&c.docs.overlay, data); err != nil {
		c.log.Warn("writing the go command's overlay for special files", "error", err)
	}
}

// writeOverlayFile writes data to *path, making the file (and setting
// *path) if *path is "".
func writeOverlayFile(path *string, data []byte) error {
	f, err := os.CreateTemp("", "goplsmcp-overlay-*.json")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && *path != "" {
		err = os.Rename(f.Name(), *path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	if *path == "" {
		*path = f.Name()
	}
	return nil
}

// overlaySettings returns settings whose env setting's GOFLAGS (which
// gopls's go commands run with; else goflags, the environment's) has
// -overlay=file too, unless that would replace the user's own -overlay or
// GOFLAGS cannot hold the path. s is not changed.
func overlaySettings(s map[string]any, goflags, file string, log *slog.Logger) map[string]any {
	env := map[string]any{}
	switch given := s["env"].(type) {
	case map[string]any:
		maps.Copy(env, given)
	case map[string]string:
		for k, v := range given {
			env[k] = v
		}
	}
	if given, ok := env["GOFLAGS"].(string); ok {
		goflags = given
	}
	switch {
	case strings.Contains(goflags, "-overlay"):
		log.Debug("GOFLAGS has an -overlay of its own; gopls's first load may read the workspace's special files", "GOFLAGS", goflags)
		return s
	case strings.ContainsAny(file, " \t\n"):
		log.Debug("GOFLAGS cannot hold the overlay file's path; gopls's first load may read the workspace's special files", "path", file)
		return s
	}
	env["GOFLAGS"] = strings.TrimSpace(goflags + " -overlay=" + file)
	out := maps.Clone(s)
	out["env"] = env
	return out
}

// recordShieldLocked records path as a special file, for the next
// gopls's replay (see replayNotes). c.docs.mu is held.
func (c *Client) recordShieldLocked(path string) {
	if c.docs.shields == nil {
		c.docs.shields = map[string]bool{}
	}
	if !c.docs.shields[FileURI(path)] {
		c.log.Warn("a Go file of the workspace is not a regular file; the go command and gopls are told it is not there", "path", path)
	}
	c.docs.shields[FileURI(path)] = true
}

// shieldNew shields the Go files among paths that have become special,
// and returns them: gopls must not hear of them either, since it reads
// a file it is told of.
func (c *Client) shieldNew(paths []string) (special []string) {
	for _, p := range paths {
		if isGoFile(filepath.Base(p)) && isSpecial(p) {
			special = append(special, p)
		}
	}
	if len(special) == 0 {
		return nil
	}
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	n := len(c.docs.shields)
	for _, p := range special {
		c.recordShieldLocked(p)
	}
	if len(c.docs.shields) > n && c.docs.overlay != "" {
		// Only an overlay gopls already runs with can take more: its
		// settings are not sent again.
		c.writeOverlayLocked()
	}
	return special
}
