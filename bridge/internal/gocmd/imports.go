package gocmd

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// ImportPaths names the packages of directories, keeping what it found:
// one serves one call. It is not safe for concurrent use.
type ImportPaths struct {
	env   *Env
	gate  *place.Gate
	paths map[string]string
}

// NewImportPaths returns an ImportPaths that knows the Go installation
// from env and reads go.mod files through gate, up to its root.
func NewImportPaths(env *Env, gate *place.Gate) *ImportPaths {
	return &ImportPaths{env: env, gate: gate, paths: make(map[string]string)}
}

// Of is ImportPath of dir, asked once.
func (ip *ImportPaths) Of(dir string) string {
	if p, ok := ip.paths[dir]; ok {
		return p
	}
	p := ImportPath(ip.env, ip.gate, dir)
	ip.paths[dir] = p
	return p
}

// ImportPath returns the import path of the package in dir: from the Go
// installation's layout, the module cache's, or the nearest go.mod at or
// above dir and not above gate's root, read through gate. It is "" when
// none applies.
func ImportPath(env *Env, gate *place.Gate, dir string) string {
	if env.GOROOT() != "" {
		src := filepath.Join(env.GOROOT(), "src")
		if place.Within(src, dir) && dir != src {
			rel, _ := filepath.Rel(src, dir)
			rel = filepath.ToSlash(rel)
			// The standard library's vendored packages are imported
			// without the vendor prefix.
			if _, after, ok := strings.Cut(rel, "vendor/"); ok && (strings.HasPrefix(rel, "vendor/") || strings.HasPrefix(rel, "cmd/vendor/")) {
				return after
			}
			return rel
		}
	}
	if env.GOMODCACHE() != "" && place.Within(env.GOMODCACHE(), dir) {
		rel, _ := filepath.Rel(env.GOMODCACHE(), dir)
		rel = filepath.ToSlash(rel)
		if mod, rest, ok := strings.Cut(rel, "@"); ok {
			mod = unescapeModulePath(mod)
			if _, sub, ok := strings.Cut(rest, "/"); ok {
				return mod + "/" + sub
			}
			return mod
		}
	}
	for d := dir; ; {
		if mod := modulePath(gate, filepath.Join(d, "go.mod")); mod != "" {
			rel, _ := filepath.Rel(d, dir)
			rel = filepath.ToSlash(rel)
			switch {
			case rel == ".":
				return mod
			case strings.HasPrefix(rel, "vendor/"):
				return strings.TrimPrefix(rel, "vendor/")
			}
			return mod + "/" + rel
		}
		parent := filepath.Dir(d)
		if parent == d || d == gate.Root() {
			return ""
		}
		d = parent
	}
}

// modulePath reads the module directive of a go.mod file, or "". It reads
// only that line, leniently: a go.mod modfile cannot parse still names its
// module.
func modulePath(gate *place.Gate, gomod string) string {
	data, err := gate.ReadFile(gomod)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" {
			if p, err := strconv.Unquote(f[1]); err == nil {
				return p
			}
			return f[1]
		}
	}
	return ""
}

// unescapeModulePath undoes the module cache's case encoding, in which
// "!x" stands for "X". Unlike module.UnescapePath it never fails, so that
// a directory the go command did not name still gets a path.
func unescapeModulePath(p string) string {
	var b strings.Builder
	bang := false
	for _, r := range p {
		switch {
		case r == '!':
			bang = true
			continue
		case bang && 'a' <= r && r <= 'z':
			r -= 'a' - 'A'
		}
		bang = false
		b.WriteRune(r)
	}
	return b.String()
}

// IsStdPath reports whether an import path is of the standard library:
// its first element has no dot.
func IsStdPath(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
