package bridge

import (
	"cmp"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"go/version"
	"maps"
	"os"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// The workspace's modules as the files on disk say: every go.mod under the
// root, what it requires, and which of its requirements the module cache
// lacks. gopls knows the modules of the builds (views) it keeps; a module
// nested in the root without a go.work gets a view only once one of its
// files is open, and a requirement missing offline shows only as "could
// not import" errors that send an agent to fix correct code.

// maxWalkDirs bounds the directories looked at for go.mod and Go files.
const maxWalkDirs = 10000

// maxNestedViews bounds the nested modules given a view of their own for
// the workspace's diagnostics.
const maxNestedViews = 16

// A diskModule is a module whose go.mod is under the root.
type diskModule struct {
	dir, gomod string // absolute
	path       string // the module path
	goVersion  string // its go directive
	// goFile is one of its Go files, outside nested modules; "" if none.
	goFile string
	// local are the directories inside the root that its replace
	// directives name: other modules of the tree it builds with.
	local []string
	// missing are the requirements the module cache lacks, replacements
	// applied, as path@version.
	missing []string
	// requires are its requirements as go.mod states them, path@version.
	requires []string
	// loadFix, for a module the go command loads no package of (a
	// vendor/ that no longer matches its requirements, a go directive
	// newer than the installed Go), is the sentence that says so and how
	// to fix it.
	loadFix string
}

// diskModules returns the modules under the root, the root's first, then
// by directory. They are found again only when the watcher reports a
// change on disk (see lspclient.Client.DiskEpoch).
func (b *Bridge) diskModules() []diskModule {
	epoch, _ := b.client.DiskEpoch(b.root)
	if mods, ok := b.modules.Get(epoch, ""); ok {
		return mods
	}
	mods := b.findModules()
	b.modules.Put(epoch, false, "", mods)
	return mods
}

// findModules looks breadth first under the root for go.mod files, as the
// go command does (vendor, testdata, hidden and _ directories left out).
func (b *Bridge) findModules() []diskModule {
	var mods []diskModule
	breadthFirst(b.root, func(dir string, entries []os.DirEntry) walkStep {
		for _, e := range entries {
			if e.Name() == "go.mod" && e.Type().IsRegular() {
				if m, ok := b.readModule(dir); ok {
					mods = append(mods, m)
				}
			}
		}
		return descend
	})
	slices.SortStableFunc(mods, func(x, y diskModule) int { return strings.Compare(x.dir, y.dir) })
	// A requirement is missing when the module cache lacks it and it is
	// no module of the tree (which a go.work or a replace provides).
	tree := map[string]bool{}
	for _, m := range mods {
		tree[m.path] = true
	}
	// Offline the go command runs only the installed toolchain
	// (GOTOOLCHAIN=local) and refuses a module that needs a newer one.
	if installed := b.goVersion(); installed != "" && !b.client.AllowsNetwork() {
		for i, m := range mods {
			if m.goVersion != "" && version.Compare("go"+m.goVersion, installed) > 0 {
				mods[i].loadFix = fmt.Sprintf("%s requires go %s but the installed Go is %s, and goplsmcp does not download toolchains: install Go %s or newer (or restart goplsmcp with --allow-network)",
					b.displayPath(m.gomod), m.goVersion, installed, m.goVersion)
			}
		}
	}
	readonly := strings.Contains(lspclient.LookupEnv(b.client.OfflineGoEnv(), "GOFLAGS"), "-mod=readonly")
	for i := range mods {
		if !readonly && b.vendored(mods[i]) {
			// The go command builds it from vendor/, not the module
			// cache: nothing is missing that a download would bring.
			mods[i].missing = nil
			mods[i].loadFix = cmp.Or(mods[i].loadFix, b.vendorMismatch(mods[i], mods))
			continue
		}
		mods[i].missing = slices.DeleteFunc(mods[i].missing, func(req string) bool {
			path, version, _ := strings.Cut(req, "@")
			return tree[path] || b.inModuleCache(module.Version{Path: path, Version: version})
		})
	}
	return mods
}

// vendored reports whether the go command builds m from a vendor
// directory by default: the vendor/ of the go.work that holds it, else
// its own when its go directive is 1.14 or later.
func (b *Bridge) vendored(m diskModule) bool {
	if work := b.workFileOf(m.dir); work != "" {
		return isFile(filepath.Join(filepath.Dir(work), "vendor", "modules.txt"))
	}
	return isFile(filepath.Join(m.dir, "vendor", "modules.txt")) &&
		(m.goVersion == "" || version.Compare("go"+m.goVersion, "go1.14") >= 0)
}

// vendorMismatch returns, when the vendor/modules.txt that m builds from
// does not list as explicit exactly what go.mod (or, in a go.work, the
// workspace's go.mod files) requires, the sentence naming the command that
// rewrites it; "" when it matches. The go command refuses to load any
// package until then, and its own words ("inconsistent vendoring") reach
// an agent only in gopls's log.
func (b *Bridge) vendorMismatch(m diskModule, mods []diskModule) string {
	dir, cmd, what := m.dir, "go mod vendor", "go.mod"
	want := map[string]string{}
	for _, r := range m.requires {
		path, v, _ := strings.Cut(r, "@")
		want[path] = v
	}
	if work := b.workFileOf(m.dir); work != "" {
		dir, cmd, what = filepath.Dir(work), "go work vendor", "the requirements of the go.work's modules"
		for _, o := range mods {
			if b.workFileOf(o.dir) != work {
				continue
			}
			for _, r := range o.requires {
				path, v, _ := strings.Cut(r, "@")
				if semver.Compare(v, want[path]) > 0 {
					want[path] = v
				}
			}
		}
		for _, o := range mods {
			if b.workFileOf(o.dir) == work {
				delete(want, o.path) // a workspace module is not vendored
			}
		}
	}
	data, err := b.reads.ReadFile(filepath.Join(dir, "vendor", "modules.txt"))
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
	where := "in " + b.displayPath(dir)
	if dir == b.root {
		where = "in the workspace root"
	}
	return fmt.Sprintf("vendor/modules.txt does not match %s, so the go command loads no package: run `%s` %s", what, cmd, where)
}

// loadFix returns the first module's loadFix; "" if none has one.
func (b *Bridge) loadFix() string {
	for _, m := range b.diskModules() {
		if m.loadFix != "" {
			return m.loadFix
		}
	}
	return ""
}

// workFileOf returns the go.work the go command would find from dir,
// looking up to the root; "" if none.
func (b *Bridge) workFileOf(dir string) string {
	for d := dir; within(b.root, d); d = filepath.Dir(d) {
		if p := filepath.Join(d, "go.work"); isFile(p) {
			return p
		}
		if d == b.root {
			break
		}
	}
	return ""
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// readModule reads the module whose go.mod is in dir.
func (b *Bridge) readModule(dir string) (diskModule, bool) {
	gomod := filepath.Join(dir, "go.mod")
	data, err := b.reads.ReadFile(gomod)
	if err != nil {
		return diskModule{}, false
	}
	// Parse, not ParseLax, which leaves out replace directives.
	f, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		f, err = modfile.ParseLax(gomod, data, nil)
	}
	if err != nil || f.Module == nil {
		return diskModule{}, false
	}
	m := diskModule{dir: dir, gomod: gomod, path: f.Module.Mod.Path, goFile: goFileOf(dir)}
	if f.Go != nil {
		m.goVersion = f.Go.Version
	}
	replaced := map[string]module.Version{}
	for _, r := range f.Replace {
		if modfile.IsDirectoryPath(r.New.Path) {
			local := filepath.Clean(filepath.Join(dir, filepath.FromSlash(r.New.Path)))
			if within(b.root, local) {
				m.local = append(m.local, local)
			}
		}
		replaced[r.Old.Path] = r.New
		if r.Old.Version != "" {
			replaced[r.Old.Path+"@"+r.Old.Version] = r.New
		}
	}
	if b.env.GOROOT() != "" && within(b.env.GOROOT(), dir) {
		// std and cmd: the go command builds them from GOROOT's vendor
		// directories, never from the module cache.
		return m, true
	}
	for _, r := range f.Require {
		m.requires = append(m.requires, r.Mod.Path+"@"+r.Mod.Version)
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
		m.missing = append(m.missing, v.Path+"@"+v.Version) // kept if not found; see findModules
	}
	return m, true
}

// inModuleCache reports whether the module cache holds the source of v,
// as a build needs it (its extracted directory), or cannot tell.
func (b *Bridge) inModuleCache(v module.Version) bool {
	if b.env.GOMODCACHE() == "" {
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
	fi, err := os.Stat(filepath.Join(b.env.GOMODCACHE(), filepath.FromSlash(escaped)+"@"+ver))
	return err == nil && fi.IsDir()
}

// goFileOf returns a Go file of the module rooted at dir, outside the
// modules nested in it, found breadth first; "" if it has none.
func goFileOf(dir string) string {
	found := ""
	breadthFirst(dir, func(d string, entries []os.DirEntry) walkStep {
		if d != dir && slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "go.mod" }) {
			return skipBelow // another module
		}
		for _, e := range entries {
			if name := e.Name(); e.Type().IsRegular() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				found = filepath.Join(d, name)
				return stopWalk
			}
		}
		return descend
	})
	return found
}

// A walkStep says where breadthFirst goes after a directory.
type walkStep int

const (
	descend   walkStep = iota // on, below it too
	skipBelow                 // on, but not below it
	stopWalk                  // nowhere: the walk is over
)

// breadthFirst calls visit with each directory below root, root included,
// breadth first, and its entries, as far as maxWalkDirs directories; those
// the go command ignores (see skipDir) are left out.
func breadthFirst(root string, visit func(dir string, entries []os.DirEntry) walkStep) {
	queue := []string{root}
	for visited := 0; len(queue) > 0 && visited < maxWalkDirs; visited++ {
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		switch visit(dir, entries) {
		case stopWalk:
			return
		case skipBelow:
			continue
		}
		for _, e := range entries {
			if e.IsDir() && !skipDir(e.Name()) {
				queue = append(queue, filepath.Join(dir, e.Name()))
			}
		}
	}
}

// knownModules returns the go.mod files of the modules gopls has in its
// builds, and the roots of those builds.
func (b *Bridge) knownModules(ctx context.Context) (gomods map[string]bool, roots []string, err error) {
	var views []view
	if err := b.client.ExecuteCommand(ctx, "gopls.views", nil, &views); err != nil {
		return nil, nil, goplsError(err)
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
	var res packagesResult
	if err := b.client.ExecuteCommand(ctx, "gopls.packages", map[string]any{"Files": files, "Recursive": true}, &res); err != nil {
		return nil, nil, goplsError(err)
	}
	for _, m := range res.Module {
		if p, err := lspclient.URIPath(m.GoMod); err == nil {
			gomods[p] = true
		}
	}
	return gomods, roots, nil
}

// workspaceFiles returns one Go file of each module of the root that gopls
// builds, for gopls.diagnose_files to diagnose every build, after giving a
// build of their own to the nested modules that build with another module
// of the tree (through a replace directive naming its directory), so that
// an edit that breaks them shows. Other nested modules are diagnosed once
// a call names one of their files.
func (b *Bridge) workspaceFiles(ctx context.Context) ([]string, error) {
	// gopls's builds change when files change on disk (a go.mod, a new
	// module), and when a file is opened in a module gopls had no build
	// for: they are kept while neither happens, so that each call after an
	// edit does not ask gopls for its views and packages again.
	epoch, _ := b.client.DiskEpoch(b.root)
	if files, ok := b.wsFiles.Get(epoch, openSet(b.client)); ok {
		return files, nil
	}
	mods := b.diskModules()
	known, roots, err := b.knownModules(ctx)
	if err != nil {
		return nil, err
	}
	covered := func(m diskModule) bool {
		return known[m.gomod] || slices.Contains(roots, m.dir)
	}
	opened := 0
	for _, m := range mods {
		if covered(m) || m.goFile == "" || len(m.local) == 0 || opened == maxNestedViews {
			continue
		}
		// gopls makes a build for a module when one of its files is open.
		src, err := b.open(ctx, m.goFile)
		if err != nil {
			b.log.Debug("opening a nested module's file", "error", err)
			continue
		}
		src.release()
		opened++
	}
	if opened > 0 {
		if known, roots, err = b.knownModules(ctx); err != nil {
			return nil, err
		}
	}
	var files []string
	for _, m := range mods {
		if m.goFile != "" && covered(m) {
			files = append(files, lspclient.FileURI(m.goFile))
		}
	}
	if len(files) == 0 {
		// No module (GOPATH, or ad hoc): any Go file names the build.
		anyGo, err := b.anyGoFile()
		if err != nil {
			return nil, err
		}
		files = append(files, lspclient.FileURI(anyGo))
	}
	b.wsFiles.Put(epoch, false, openSet(b.client), files)
	return files, nil
}

// openSet names the documents open in gopls, as a key.
func openSet(c *lspclient.Client) string {
	open := c.OpenDocuments()
	slices.Sort(open)
	return strings.Join(open, "\n")
}

// missingModules returns, for each module of the root whose requirements
// the module cache lacks, its directory (relative to the root) and those
// requirements.
func (b *Bridge) missingModules() []diskModule {
	var out []diskModule
	for _, m := range b.diskModules() {
		if len(m.missing) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// missingHint is the one line that says how to get the module cache the
// missing requirements of the module in dir (relative to the root).
func (b *Bridge) missingHint(dir string) string {
	where := "in " + dir
	if dir == "." {
		where = "in the workspace root"
	}
	if b.client.AllowsNetwork() {
		return fmt.Sprintf("run `go mod download` %s", where)
	}
	return fmt.Sprintf("run `go mod download` %s, or restart goplsmcp with --allow-network", where)
}

// missingFor returns the hint for a message that names a package of a
// module missing from the module cache, or "" when it names none.
func (b *Bridge) missingFor(message string) string {
	for _, m := range b.missingModules() {
		for _, req := range m.missing {
			path, _, _ := strings.Cut(req, "@")
			if namesModule(message, path) {
				return fmt.Sprintf("module %s is not in the module cache: %s", req, b.missingHint(b.displayPath(m.dir)))
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

// addMissingHints makes every tool error that a missing module causes say
// so, and how to get it: gopls's own words ("no package data for import",
// "failed to resolve import") send an agent to fix correct code.
func (b *Bridge) addMissingHints(s *mcp.Server) error {
	s.AddToolMiddleware(func(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
		out, err := next(ctx)
		if err == nil || ctx.Err() != nil {
			return out, err
		}
		if hint := b.missingHintFor(err.Error()); hint != "" {
			return nil, fmt.Errorf("%w; %s", err, hint)
		}
		return out, err
	})
	return nil
}

// loadFailure matches gopls's words for a package it could not load or
// import.
var loadFailure = regexp.MustCompile(`no package (data|metadata) for|could not import|failed to resolve import|no required module provides`)

// missingHintFor returns the hint for a message about a module missing
// from the module cache: one it names, or, for a failure to load that
// names none, all that are missing; "" when none is.
func (b *Bridge) missingHintFor(msg string) string {
	if hint := b.missingFor(msg); hint != "" || !loadFailure.MatchString(msg) {
		return hint
	}
	if fix := b.loadFix(); fix != "" {
		return fix
	}
	mods := b.missingModules()
	if len(mods) == 0 {
		return ""
	}
	var reqs []string
	for _, m := range mods {
		reqs = append(reqs, m.missing...)
	}
	if len(reqs) == 1 {
		return fmt.Sprintf("module %s is not in the module cache: %s", reqs[0], b.missingHint(b.displayPath(mods[0].dir)))
	}
	return fmt.Sprintf("modules %s are not in the module cache: %s", strings.Join(reqs, ", "), b.missingHint(b.displayPath(mods[0].dir)))
}

// missingImportAt returns the hint when the identifier at line and char
// of src (0-based, UTF-16) names, or is in the import of, a package of a
// module missing from the module cache: gopls knows nothing of it.
func (b *Bridge) missingImportAt(src *source, line, char int) string {
	if len(b.missingModules()) == 0 {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src.text, parser.ImportsOnly)
	if err != nil && f == nil {
		return ""
	}
	text := src.line(line)
	ident := identAt(text, char)
	// What precedes the identifier, for a selection name.X.
	start := min(len(text), byteOffset(text, char))
	for start > 0 && isIdentByte(text[start-1]) {
		start--
	}
	before := strings.TrimRight(text[:start], " \t")
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		name := pathpkg.Base(path)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		// The identifier is the package's name, or what it selects
		// (name.X), or the position is on the import itself.
		if ident == name || strings.HasSuffix(before, name+".") || strings.Contains(text, strconv.Quote(path)) {
			if hint := b.missingFor(strconv.Quote(path)); hint != "" {
				return hint
			}
		}
	}
	return ""
}

// isIdentByte reports whether c may be part of a Go identifier (bytes of
// a multi-byte letter included).
func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
