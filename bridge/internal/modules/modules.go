package modules

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// maxNestedViews bounds the nested modules given a view of their own for
// the workspace's diagnostics.
const maxNestedViews = 16

// Config is what a [Modules] is made of.
type Config struct {
	// Client is the gopls whose builds are asked for.
	Client *lspclient.Client
	// Reads is the read gate of the root: go.mod files and vendor/
	// manifests are read through it, and paths shown by it.
	Reads *place.Gate
	// Env knows the Go installation and the module cache.
	Env *gocmd.Env
	// Buffers opens a nested module's file, which makes gopls build it.
	Buffers *buffer.Set
	// GoVersion returns the installed Go's version ("go1.N"), "" if
	// unknown.
	GoVersion func() string
	// Log receives what goes wrong on the side; nil discards.
	Log *slog.Logger
}

// Modules answers about the workspace's modules. It is safe for
// concurrent use.
type Modules struct {
	c Config
	// disk are the modules under the root, and files name every build
	// for the workspace's diagnostics (by the documents open), each at a
	// layout epoch (see lspclient.Client.LayoutEpoch): a Go file's edit
	// on disk changes neither, and finding them again costs a walk of the
	// tree and two gopls commands before every diagnosis after an edit.
	disk  memo.Gen[string, onDisk]
	files memo.Gen[string, builds]
	// found counts the walks of the tree, naming each onDisk answer.
	found atomic.Uint64

	goFileMu sync.Mutex
	goFile   string // a Go file in the workspace, found on first need
}

// New returns the modules of c's root.
func New(c Config) *Modules {
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	m := &Modules{c: c}
	m.disk.Max, m.files.Max = 1, 1
	return m
}

// The workspace's modules as the files on disk say (see gocmd.Finder):
// gopls knows the modules of the builds (views) it keeps; a module nested
// in the root without a go.work gets a view only once one of its files is
// open, and a requirement missing offline shows only as "could not
// import" errors that send an agent to fix correct code.

// OnDisk returns the modules under the root, the root's first, then by
// directory. They are found again only when the watcher reports a change
// on disk to more than Go files' content (see
// lspclient.Client.LayoutEpoch), or to any file while a module has no Go
// file (a new one would be its GoFile), or when a module's GoFile is gone.
func (m *Modules) OnDisk() []gocmd.Module {
	a, _ := m.onDisk()
	return a.mods
}

// onDisk is a walk's answer: the modules, which walk found them, and
// the disk epoch it was made at. m.onDisk also returns the layout epoch
// it was looked up at.
type onDisk struct {
	mods  []gocmd.Module
	walk  uint64
	epoch uint64
}

func (m *Modules) onDisk() (onDisk, uint64) {
	layout := m.c.Client.LayoutEpoch()
	epoch, _ := m.c.Client.DiskEpoch(m.c.Reads.Root())
	if a, ok := m.disk.Get(layout, ""); ok && a.current(epoch) {
		return a, layout
	}
	f := gocmd.Finder{Gate: m.c.Reads, Env: m.c.Env, GoVersion: m.c.GoVersion, Network: m.c.Client.AllowsNetwork(),
		GoFlags: lspclient.LookupEnv(m.c.Client.OfflineGoEnv(), "GOFLAGS")}
	a := onDisk{mods: f.Find(), walk: m.found.Add(1), epoch: epoch}
	m.disk.Put(layout, false, "", a)
	return a, layout
}

// current reports whether a walk made at the same layout epoch still
// holds at disk epoch epoch: every module's GoFile is still there, and
// none lacks one unless nothing at all has changed since.
func (a onDisk) current(epoch uint64) bool {
	for _, mod := range a.mods {
		if mod.GoFile == "" && epoch != a.epoch {
			return false
		}
		if mod.GoFile != "" && !gocmd.IsFile(mod.GoFile) {
			return false
		}
	}
	return true
}

// LoadFix returns the first module's LoadFix; "" if none has one.
func (m *Modules) LoadFix() string {
	for _, mod := range m.OnDisk() {
		if mod.LoadFix != "" {
			return mod.LoadFix
		}
	}
	return ""
}

// View is the part of a gopls.views answer goplsmcp uses.
type View struct {
	Type string `json:"Type"`
	Root string `json:"Root"`
}

// Packages is the part of a gopls.packages answer goplsmcp uses.
type Packages struct {
	Packages []struct {
		Path       string `json:"Path"`
		ModulePath string `json:"ModulePath"`
		ForTest    string `json:"ForTest"`
	} `json:"Packages"`
	Module map[string]struct {
		Path  string `json:"Path"`
		GoMod string `json:"GoMod"`
	} `json:"Module"`
}

// known returns the go.mod files of the modules gopls has in its builds,
// and the roots of those builds.
func (m *Modules) known(ctx context.Context) (gomods map[string]bool, roots []string, err error) {
	var views []View
	if err := m.c.Client.ExecuteCommand(ctx, "gopls.views", nil, &views); err != nil {
		return nil, nil, ask.Error(err)
	}
	var files []string
	for _, v := range views {
		if dir, err := lspclient.URIPath(v.Root); err == nil {
			roots = append(roots, dir)
			files = append(files, v.Root)
		}
	}
	gomods = map[string]bool{}
	if len(files) == 0 {
		return gomods, roots, nil
	}
	var res Packages
	if err := m.c.Client.ExecuteCommand(ctx, "gopls.packages", map[string]any{"Files": files, "Recursive": true}, &res); err != nil {
		return nil, nil, ask.Error(err)
	}
	for _, mod := range res.Module {
		if p, err := lspclient.URIPath(mod.GoMod); err == nil {
			gomods[p] = true
		}
	}
	return gomods, roots, nil
}

// WorkspaceFiles returns one Go file of each module of the root that gopls
// builds, for gopls.diagnose_files to diagnose every build, after giving a
// build of their own to the nested modules that build with another module
// of the tree (through a replace directive naming its directory), so that
// an edit that breaks them shows. Other nested modules are diagnosed once
// a call names one of their files. The call runs as caller.
func (m *Modules) WorkspaceFiles(ctx context.Context, caller buffer.Caller) ([]string, error) {
	// gopls's builds change when files change on disk (a go.mod, a new
	// module), and when a file is opened or closed in a module gopls has
	// no build for on its own: they are kept while neither happens, so
	// that each call after an edit does not ask gopls for its views and
	// packages again.
	// The walk checked that its modules' Go files are still there; only
	// the file named when there is no module is checked here.
	disk, layout := m.onDisk()
	mods := disk.mods
	if b, ok := m.files.Get(layout, ""); ok && b.walk == disk.walk && b.opened == m.openOutside(mods, b.own) && (b.anyGo == "" || gocmd.IsFile(b.anyGo)) {
		return b.files, nil
	}
	known, roots, err := m.known(ctx)
	if err != nil {
		return nil, err
	}
	covered := func(mod gocmd.Module) bool {
		return known[mod.GoMod] || slices.Contains(roots, mod.Dir)
	}
	own := map[string]bool{}
	for _, mod := range mods {
		if covered(mod) {
			own[mod.Dir] = true
		}
	}
	opened := 0
	for _, mod := range mods {
		if covered(mod) || mod.GoFile == "" || len(mod.Local) == 0 || opened == maxNestedViews {
			continue
		}
		// gopls makes a build for a module when one of its files is open.
		src, err := m.c.Buffers.Open(ctx, caller, mod.GoFile)
		if err != nil {
			m.c.Log.Debug("opening a nested module's file", "error", err)
			continue
		}
		src.Release()
		opened++
	}
	if opened > 0 {
		if known, roots, err = m.known(ctx); err != nil {
			return nil, err
		}
	}
	var files []string
	fallback := ""
	for _, mod := range mods {
		if mod.GoFile != "" && covered(mod) {
			files = append(files, lspclient.FileURI(mod.GoFile))
		}
	}
	if len(files) == 0 {
		// No module (GOPATH, or ad hoc): any Go file names the build.
		anyGo, err := m.AnyGoFile()
		if err != nil {
			return nil, err
		}
		files = append(files, lspclient.FileURI(anyGo))
		fallback = anyGo
	}
	m.files.Put(layout, false, "", builds{files: files, walk: disk.walk, own: own, opened: m.openOutside(mods, own), anyGo: fallback})
	return files, nil
}

// builds is a WorkspaceFiles answer: the files, the walk of the tree it
// was made from, the directories of the modules gopls built on its own
// then, the documents open outside them (see openOutside), and the Go
// file named when no module is (AnyGoFile), if so.
type builds struct {
	files  []string
	walk   uint64
	own    map[string]bool
	opened string
	anyGo  string
}

// openOutside names, as a key, the documents open in gopls outside the
// modules gopls builds on its own (own, by directory; a document belongs
// to the innermost module holding it): opening or closing one of those
// may give gopls a build or take one away, while the documents of a
// module it builds anyway, however many come and go, do not.
func (m *Modules) openOutside(mods []gocmd.Module, own map[string]bool) string {
	var outside []string
	for _, uri := range m.c.Client.OpenDocuments() {
		path, err := lspclient.URIPath(uri)
		if err != nil {
			outside = append(outside, uri)
			continue
		}
		in := ""
		for _, mod := range mods {
			if place.Within(mod.Dir, path) && len(mod.Dir) > len(in) {
				in = mod.Dir
			}
		}
		if !own[in] {
			outside = append(outside, uri)
		}
	}
	slices.Sort(outside)
	return strings.Join(outside, "\n")
}

// AnyGoFile returns a Go file inside the root, which names the workspace
// to gopls's diagnose command. It searches the tree breadth first and
// stops at the first one.
func (m *Modules) AnyGoFile() (string, error) {
	m.goFileMu.Lock()
	defer m.goFileMu.Unlock()
	if m.goFile != "" {
		if _, err := os.Stat(m.goFile); err == nil {
			return m.goFile, nil
		}
	}
	m.goFile = ""
	root := m.c.Reads.Root()
	gocmd.BreadthFirst(root, func(dir string, entries []os.DirEntry) gocmd.WalkStep {
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".go") {
				m.goFile = filepath.Join(dir, e.Name())
				return gocmd.StopWalk
			}
		}
		return gocmd.Descend
	})
	if m.goFile != "" {
		return m.goFile, nil
	}
	return "", fmt.Errorf("no Go file under the workspace root %s: %w", root, fs.ErrNotExist)
}

// Missing returns the modules of the root whose requirements the module
// cache lacks.
func (m *Modules) Missing() []gocmd.Module {
	var out []gocmd.Module
	for _, mod := range m.OnDisk() {
		if len(mod.Missing) > 0 {
			out = append(out, mod)
		}
	}
	return out
}

// Hint is the one line that says how to get the module cache the missing
// requirements of the module in dir (as shown: relative to the root).
func (m *Modules) Hint(dir string) string {
	where := "in " + dir
	if dir == "." {
		where = "in the workspace root"
	}
	if m.c.Client.AllowsNetwork() {
		return fmt.Sprintf("run `go mod download` %s", where)
	}
	return fmt.Sprintf("run `go mod download` %s, or restart goplsmcp with --allow-network", where)
}

// HintFor returns the hint for a message that names a package of a module
// missing from the module cache, or "" when it names none.
func (m *Modules) HintFor(message string) string {
	for _, mod := range m.Missing() {
		for _, req := range mod.Missing {
			path, _, _ := strings.Cut(req, "@")
			if namesModule(message, path) {
				return fmt.Sprintf("module %s is not in the module cache: %s", req, m.Hint(m.c.Reads.Display(mod.Dir)))
			}
		}
	}
	return ""
}

// namesModule reports whether msg names the module path, or a package in
// it: path followed by nothing, a slash, a quote or a space.
func namesModule(msg, path string) bool {
	for i := 0; ; {
		j := strings.Index(msg[i:], path)
		if j < 0 {
			return false
		}
		end := i + j + len(path)
		if end == len(msg) || strings.ContainsRune("/\"' )", rune(msg[end])) {
			return true
		}
		i = end
	}
}

// loadFailure matches gopls's words for a package it could not load or
// import, or a workspace it could make no build of.
var loadFailure = regexp.MustCompile(`no package (data|metadata) for|could not import|failed to resolve import|no required module provides|no views`)

// HintForFailure returns the hint for a message about a module missing
// from the module cache: one it names, or, for a failure to load that
// names none, the module that loads nothing or all that are missing; ""
// when none is.
func (m *Modules) HintForFailure(msg string) string {
	if hint := m.HintFor(msg); hint != "" || !loadFailure.MatchString(msg) {
		return hint
	}
	if fix := m.LoadFix(); fix != "" {
		return fix
	}
	mods := m.Missing()
	if len(mods) == 0 {
		return ""
	}
	var reqs []string
	for _, mod := range mods {
		reqs = append(reqs, mod.Missing...)
	}
	if len(reqs) == 1 {
		return fmt.Sprintf("module %s is not in the module cache: %s", reqs[0], m.Hint(m.c.Reads.Display(mods[0].Dir)))
	}
	return fmt.Sprintf("modules %s are not in the module cache: %s", strings.Join(reqs, ", "), m.Hint(m.c.Reads.Display(mods[0].Dir)))
}
