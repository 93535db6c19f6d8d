package gocmd

import (
	"cmp"
	"fmt"
	"go/version"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// The workspace's modules as the files on disk say: every go.mod under the
// root, what it requires, and which of its requirements the module cache
// lacks.

// maxWalkDirs bounds the directories looked at for go.mod and Go files.
const maxWalkDirs = 10000

// A Module is a module whose go.mod is under the root, as its files say.
type Module struct {
	Dir, GoMod string // absolute
	Path       string // the module path
	GoVersion  string // its go directive
	// Work is the go.work file that holds it (the one the go command
	// finds from its directory), and WorkGoVersion its go directive;
	// both "" when there is none.
	Work, WorkGoVersion string
	// GoFile is one of its Go files, outside nested modules; "" if none.
	GoFile string
	// Local are the directories inside the root that its replace
	// directives name: other modules of the tree it builds with.
	Local []string
	// Missing are the requirements the module cache lacks, replacements
	// applied, as path@version.
	Missing []string
	// Requires are its requirements as go.mod states them, path@version.
	Requires []string
	// LoadFix, for a module the go command loads no package of (a
	// vendor/ that no longer matches its requirements, a go directive
	// newer than the installed Go), is the sentence that says so and how
	// to fix it.
	LoadFix string
}

// A Finder finds the modules under the root of its Gate, reading go.mod
// and vendor/modules.txt through the gate.
type Finder struct {
	Gate *place.Gate
	Env  *Env
	// GoVersion returns the version of the Go the go command runs
	// ("go1.N"), "" if unknown; Network says whether the go command may
	// download (a newer toolchain among others); GoFlags are the GOFLAGS
	// its go command runs with.
	GoVersion func() string
	Network   bool
	GoFlags   string
}

// Find looks breadth first under the root for go.mod files, as the
// go command does (vendor, testdata, hidden and _ directories left out).
func (fd *Finder) Find() []Module {
	var mods []Module
	BreadthFirst(fd.Gate.Root(), func(dir string, entries []os.DirEntry) WalkStep {
		for _, e := range entries {
			if e.Name() == "go.mod" && e.Type().IsRegular() {
				if m, ok := fd.readModule(dir); ok {
					mods = append(mods, m)
				}
			}
		}
		return Descend
	})
	slices.SortStableFunc(mods, func(x, y Module) int { return strings.Compare(x.Dir, y.Dir) })
	// A requirement is missing when the module cache lacks it and it is
	// no module of the tree (which a go.work or a replace provides).
	tree := map[string]bool{}
	for _, m := range mods {
		tree[m.Path] = true
	}
	// Offline the go command runs only a toolchain that is here: the
	// installed one (GOTOOLCHAIN=local), which refuses a module that
	// needs a newer one, or the one GOTOOLCHAIN names, which fails every
	// load when it is not here.
	switch installed := fd.GoVersion(); {
	case fd.Network:
	case fd.Env.MissingToolchain() != "":
		for i := range mods {
			mods[i].LoadFix = MissingToolchainFix(fd.Env.MissingToolchain())
		}
	case installed != "":
		for i, m := range mods {
			if m.GoVersion != "" && version.Compare("go"+m.GoVersion, installed) > 0 {
				mods[i].LoadFix = fmt.Sprintf("%s requires go %s but the installed Go is %s, and goplsmcp does not download toolchains: install Go %s or newer (or restart goplsmcp with --allow-network)",
					fd.Gate.Display(m.GoMod), m.GoVersion, installed, m.GoVersion)
			}
		}
	}
	works := map[string]string{}
	for i, m := range mods {
		if work := fd.workFileOf(m.Dir); work != "" {
			if _, ok := works[work]; !ok {
				works[work] = fd.workGoVersion(work)
			}
			mods[i].Work, mods[i].WorkGoVersion = work, works[work]
		}
	}
	readonly := strings.Contains(fd.GoFlags, "-mod=readonly")
	for i := range mods {
		if !readonly && fd.vendored(mods[i]) {
			// The go command builds it from vendor/, not the module
			// cache: nothing is missing that a download would bring.
			mods[i].Missing = nil
			mods[i].LoadFix = cmp.Or(mods[i].LoadFix, fd.vendorMismatch(mods[i], mods))
			continue
		}
		mods[i].Missing = slices.DeleteFunc(mods[i].Missing, func(req string) bool {
			path, version, _ := strings.Cut(req, "@")
			return tree[path] || fd.inModuleCache(module.Version{Path: path, Version: version})
		})
	}
	return mods
}

// MissingToolchainFix is the sentence for a GOTOOLCHAIN that names a
// toolchain the go command cannot run offline: every load fails until it
// is here.
func MissingToolchainFix(toolchain string) string {
	name, _, _ := strings.Cut(toolchain, "+")
	return fmt.Sprintf("GOTOOLCHAIN=%s names a Go toolchain that is neither on PATH nor in the module cache, and goplsmcp does not download toolchains: fetch it once with `GOTOOLCHAIN=%s go version` (or restart goplsmcp with --allow-network)",
		toolchain, name)
}

// vendored reports whether the go command builds m from a vendor
// directory by default: the vendor/ of the go.work that holds it, else
// its own when its go directive is 1.14 or later.
func (fd *Finder) vendored(m Module) bool {
	if work := fd.workFileOf(m.Dir); work != "" {
		return IsFile(filepath.Join(filepath.Dir(work), "vendor", "modules.txt"))
	}
	return IsFile(filepath.Join(m.Dir, "vendor", "modules.txt")) &&
		(m.GoVersion == "" || version.Compare("go"+m.GoVersion, "go1.14") >= 0)
}

// vendorMismatch returns, when the vendor/modules.txt that m builds from
// does not list as explicit exactly what go.mod (or, in a go.work, the
// workspace's go.mod files) requires, the sentence naming the command that
// rewrites it; "" when it matches. The go command refuses to load any
// package until then, and its own words ("inconsistent vendoring") reach
// an agent only in gopls's log.
func (fd *Finder) vendorMismatch(m Module, mods []Module) string {
	dir, cmd, what := m.Dir, "go mod vendor", "go.mod"
	want := map[string]string{}
	for _, r := range m.Requires {
		path, v, _ := strings.Cut(r, "@")
		want[path] = v
	}
	if work := fd.workFileOf(m.Dir); work != "" {
		dir, cmd, what = filepath.Dir(work), "go work vendor", "the requirements of the go.work's modules"
		for _, o := range mods {
			if fd.workFileOf(o.Dir) != work {
				continue
			}
			for _, r := range o.Requires {
				path, v, _ := strings.Cut(r, "@")
				if semver.Compare(v, want[path]) > 0 {
					want[path] = v
				}
			}
		}
		for _, o := range mods {
			if fd.workFileOf(o.Dir) == work {
				delete(want, o.Path) // a workspace module is not vendored
			}
		}
	}
	data, err := fd.Gate.ReadFile(filepath.Join(dir, "vendor", "modules.txt"))
	if err != nil {
		return ""
	}
	got := map[string]string{}
	var path, v string
	for _, line := range strings.Split(string(data), "\n") {
		switch f := strings.Fields(line); {
		case len(f) >= 3 && f[0] == "#":
			path, v = f[1], f[2]
		case len(f) == 1 && f[0] == "#":
			path, v = "", ""
		case line == "## explicit" || strings.HasPrefix(line, "## explicit;"):
			if path != "" {
				got[path] = v
			}
		}
	}
	if maps.Equal(want, got) {
		return ""
	}
	where := "in " + fd.Gate.Display(dir)
	if dir == fd.Gate.Root() {
		where = "in the workspace root"
	}
	return fmt.Sprintf("vendor/modules.txt does not match %s, so the go command loads no package: run `%s` %s", what, cmd, where)
}

// workFileOf returns the go.work the go command would find from dir,
// looking up to the root; "" if none.
func (fd *Finder) workFileOf(dir string) string {
	for d := dir; place.Within(fd.Gate.Root(), d); d = filepath.Dir(d) {
		if p := filepath.Join(d, "go.work"); IsFile(p) {
			return p
		}
		if d == fd.Gate.Root() {
			break
		}
	}
	return ""
}

// workGoVersion returns the go directive of the go.work file work; "" if
// it has none or cannot be read.
func (fd *Finder) workGoVersion(work string) string {
	data, err := fd.Gate.ReadFile(work)
	if err != nil {
		return ""
	}
	f, err := modfile.ParseWork(work, data, nil)
	if err != nil || f.Go == nil {
		return ""
	}
	return f.Go.Version
}

// IsFile reports whether p is a regular file now.
func IsFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// readModule reads the module whose go.mod is in dir.
func (fd *Finder) readModule(dir string) (Module, bool) {
	gomod := filepath.Join(dir, "go.mod")
	data, err := fd.Gate.ReadFile(gomod)
	if err != nil {
		return Module{}, false
	}
	// Parse, not ParseLax, which leaves out replace directives.
	f, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		f, err = modfile.ParseLax(gomod, data, nil)
	}
	if err != nil || f.Module == nil {
		return Module{}, false
	}
	m := Module{Dir: dir, GoMod: gomod, Path: f.Module.Mod.Path, GoFile: goFileOf(dir)}
	if f.Go != nil {
		m.GoVersion = f.Go.Version
	}
	replaced := map[string]module.Version{}
	for _, r := range f.Replace {
		if modfile.IsDirectoryPath(r.New.Path) {
			local := filepath.Clean(filepath.Join(dir, filepath.FromSlash(r.New.Path)))
			if place.Within(fd.Gate.Root(), local) {
				m.Local = append(m.Local, local)
			}
		}
		replaced[r.Old.Path] = r.New
		if r.Old.Version != "" {
			replaced[r.Old.Path+"@"+r.Old.Version] = r.New
		}
	}
	if fd.Env.GOROOT() != "" && place.Within(fd.Env.GOROOT(), dir) {
		// std and cmd: the go command builds them from GOROOT's vendor
		// directories, never from the module cache.
		return m, true
	}
	for _, r := range f.Require {
		m.Requires = append(m.Requires, r.Mod.Path+"@"+r.Mod.Version)
	}
	for _, r := range f.Require {
		v := r.Mod
		if n, ok := replaced[v.Path+"@"+v.Version]; ok {
			v = n
		} else if n, ok := replaced[v.Path]; ok {
			v = n
		}
		if modfile.IsDirectoryPath(v.Path) {
			continue // a directory, not a module to download
		}
		m.Missing = append(m.Missing, v.Path+"@"+v.Version) // kept if not found; see findModules
	}
	return m, true
}

// inModuleCache reports whether the module cache holds the source of v,
// as a build needs it (its extracted directory), or cannot tell.
func (fd *Finder) inModuleCache(v module.Version) bool {
	if fd.Env.GOMODCACHE() == "" {
		return true // unknown: nothing to say
	}
	escaped, err := module.EscapePath(v.Path)
	if err != nil {
		return true
	}
	ver, err := module.EscapeVersion(v.Version)
	if err != nil {
		return true
	}
	fi, err := os.Stat(filepath.Join(fd.Env.GOMODCACHE(), filepath.FromSlash(escaped)+"@"+ver))
	return err == nil && fi.IsDir()
}

// goFileOf returns a Go file of the module rooted at dir, outside the
// modules nested in it, found breadth first; "" if it has none.
func goFileOf(dir string) string {
	found := ""
	BreadthFirst(dir, func(d string, entries []os.DirEntry) WalkStep {
		if d != dir && slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "go.mod" }) {
			return SkipBelow // another module
		}
		for _, e := range entries {
			if name := e.Name(); e.Type().IsRegular() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				found = filepath.Join(d, name)
				return StopWalk
			}
		}
		return Descend
	})
	return found
}

// A WalkStep says where BreadthFirst goes after a directory.
type WalkStep int

const (
	Descend   WalkStep = iota // on, below it too
	SkipBelow                 // on, but not below it
	StopWalk                  // nowhere: the walk is over
)

// BreadthFirst calls visit with each directory below root, root included,
// breadth first, and its entries, as far as maxWalkDirs directories; those
// the go command ignores (see SkipDir) are left out.
func BreadthFirst(root string, visit func(dir string, entries []os.DirEntry) WalkStep) {
	queue := []string{root}
	for visited := 0; len(queue) > 0 && visited < maxWalkDirs; visited++ {
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		switch visit(dir, entries) {
		case StopWalk:
			return
		case SkipBelow:
			continue
		}
		for _, e := range entries {
			if e.IsDir() && !SkipDir(e.Name()) {
				queue = append(queue, filepath.Join(dir, e.Name()))
			}
		}
	}
}

// SkipDir reports directories the go command ignores.
func SkipDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}
