package bridge

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// resolveFile turns a file argument (absolute, or relative to the root)
// into an absolute path inside the root, following symbolic links. The file
// must exist.
func (b *Bridge) resolveFile(file string) (string, error) {
	if err := checkPathText(file); err != nil {
		return "", err
	}
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.root, p)
	}
	p = filepath.Clean(p)
	if !within(b.root, p) {
		return "", fmt.Errorf("file %s is outside the workspace root; pass a path inside %s", quote(file), b.root)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("file %s does not exist; paths are relative to the workspace root %s", quote(file), b.root)
		}
		return "", fmt.Errorf("file %s cannot be resolved: %v", quote(file), err)
	}
	if !within(b.root, real) {
		return "", fmt.Errorf("file %s leads outside the workspace root through a symbolic link", quote(file))
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("file %s cannot be read: %v", quote(file), err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%s is a directory; pass a file", quote(file))
	}
	return real, nil
}

// resolveNewFile is resolveFile for a file that may not exist yet: its
// nearest existing directory must resolve inside the root.
func (b *Bridge) resolveNewFile(file string) (string, error) {
	if err := checkPathText(file); err != nil {
		return "", err
	}
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.root, p)
	}
	p = filepath.Clean(p)
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) || !within(b.root, p) {
		return b.resolveFile(file)
	}
	var rest []string
	dir := p
	for {
		rest = append([]string{filepath.Base(dir)}, rest...)
		dir = filepath.Dir(dir)
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("file %s cannot be resolved: %v", quote(file), err)
			}
			continue
		}
		if !within(b.root, real) {
			return "", fmt.Errorf("file %s leads outside the workspace root through a symbolic link", quote(file))
		}
		if !strings.HasSuffix(p, ".go") {
			return "", fmt.Errorf("file %s does not exist; unsaved text for a new file must be for a .go file", quote(file))
		}
		return filepath.Join(append([]string{real}, rest...)...), nil
	}
}

// checkPathText rejects a path argument that is empty or holds what no
// plain path does.
func checkPathText(file string) error {
	if file == "" {
		return errors.New("file is empty; pass a path relative to the root or an absolute path inside it")
	}
	if strings.ContainsRune(file, 0) || !utf8.ValidString(file) || hasControl(file) {
		return errors.New("file contains control characters or invalid UTF-8; pass a plain path")
	}
	return nil
}

// within reports whether path is root or below it. Both must be clean.
func within(root, path string) bool {
	if path == root {
		return true
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// quote shortens a client string for echoing in a message.
func quote(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 80 {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return fmt.Sprintf("%q", b.String())
}

// goEnv holds the Go installation's directories, for showing paths outside
// the root. It is filled on first use.
type goEnv struct {
	once     sync.Once
	goroot   string
	modcache string
}

func (e *goEnv) load() {
	e.once.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output()
		if err != nil {
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			e.goroot = evalOrSelf(lines[0])
			e.modcache = evalOrSelf(lines[1])
		}
	})
}

func evalOrSelf(p string) string {
	if p == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// displayPath shows path relative to the root when inside it, and as
// $GOROOT/... or $GOMODCACHE/... when in the Go installation or the module
// cache, which are read-only context.
func (b *Bridge) displayPath(path string) string {
	if within(b.root, path) {
		rel, _ := filepath.Rel(b.root, path)
		return filepath.ToSlash(rel)
	}
	b.env.load()
	for _, d := range []struct{ dir, name string }{{b.env.goroot, "$GOROOT"}, {b.env.modcache, "$GOMODCACHE"}} {
		if d.dir != "" && within(d.dir, path) {
			rel, _ := filepath.Rel(d.dir, path)
			return d.name + "/" + filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

// displayURI is displayPath for a file:// URI.
func (b *Bridge) displayURI(uri string) string {
	p, err := lspclient.URIPath(uri)
	if err != nil {
		return uri
	}
	return b.displayPath(p)
}
