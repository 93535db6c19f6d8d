package gocmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"golang.org/x/mod/modfile"
)

// A RootBuild says which files gopls type-checks, from its start, in the
// build (view) it makes for the workspace root: the root's go.work's
// modules, else the module holding the root. gopls makes a build of its
// own for another file (in a nested module, excluded by its build
// constraints, in testdata, ...) only when the file is opened; so a file
// RootBuild does not have must be opened for gopls to answer about it.
//
// It errs towards "no": a file it cannot place for sure (another go.work
// named by GOWORK, one above the root, a packages driver, GOPATH mode) is
// reported as outside, and then merely opened.
type RootBuild struct {
	Gate  *place.Gate
	Build *Build
	// Env returns the value of key in the environment gopls's go command
	// runs with (the go env file's when the environment has none); "" if
	// unset. Nil means the process's environment alone.
	Env func(key string) string
}

func (r *RootBuild) env(key string) string {
	if r.Env == nil {
		return os.Getenv(key)
	}
	return r.Env(key)
}

// Excludes reports whether the Go file at path, inside the root, is left
// out of the root's build by its build constraints or its name: a file
// for another GOOS or GOARCH, or one its tags leave out. gopls answers
// about such a file in a build it makes for it while the file is open.
func (r *RootBuild) Excludes(path string) bool {
	if filepath.Ext(path) != ".go" || r.Build == nil || !place.Within(r.Gate.Root(), path) {
		return false
	}
	dir, name := filepath.Split(path)
	return !r.Build.Includes(filepath.Clean(dir), name)
}

// Has reports whether the Go file at path, inside the root, is in the
// root's build.
func (r *RootBuild) Has(path string) bool {
	root := r.Gate.Root()
	if filepath.Ext(path) != ".go" || !place.Within(root, path) {
		return false
	}
	if d := r.env("GOPACKAGESDRIVER"); d != "" && d != "off" {
		return false
	}
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, name := range strings.Split(filepath.ToSlash(rel), "/") {
		if name != "." && SkipDir(name) {
			return false
		}
	}
	dir, name := filepath.Split(path)
	if r.Build != nil && !r.Build.Includes(filepath.Clean(dir), name) {
		return false
	}
	mod := upTo(filepath.Dir(path), "go.mod")
	if mod == "" {
		return false // GOPATH or ad hoc: gopls's packages are its own
	}
	work := ""
	switch v := r.env("GOWORK"); v {
	case "off":
	case "", "auto":
		work = upTo(root, "go.work")
	default:
		return false
	}
	if work == "" {
		return mod == upTo(root, "go.mod")
	}
	if !place.Within(root, work) {
		return false // not read: outside the root
	}
	data, err := r.Gate.ReadFile(work)
	if err != nil {
		return false
	}
	wf, err := modfile.ParseWork(work, data, nil)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(wf.Use, func(u *modfile.Use) bool {
		d := u.Path
		if !filepath.IsAbs(d) {
			d = filepath.Join(filepath.Dir(work), d)
		}
		return filepath.Join(filepath.Clean(d), "go.mod") == mod
	})
}

// upTo returns the file called name in dir or the nearest directory above
// it that has one, as the go command looks for go.mod and go.work; "" if
// none has.
func upTo(dir, name string) string {
	for {
		if p := filepath.Join(dir, name); IsFile(p) {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
