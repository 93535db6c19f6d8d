package bridge

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	pathpkg "path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// maxNestedViews bounds the nested modules given a view of their own for
// the workspace's diagnostics.
const maxNestedViews = 16

// The workspace's modules as the files on disk say (see gocmd.Finder):
// gopls knows the modules of the builds (views) it keeps; a module nested
// in the root without a go.work gets a view only once one of its files is
// open, and a requirement missing offline shows only as "could not
// import" errors that send an agent to fix correct code.

// diskModules returns the modules under the root, the root's first, then
// by directory. They are found again only when the watcher reports a
// change on disk (see lspclient.Client.DiskEpoch).
func (b *Bridge) diskModules() []gocmd.Module {
	epoch, _ := b.client.DiskEpoch(b.root)
	if mods, ok := b.modules.Get(epoch, ""); ok {
		return mods
	}
	f := gocmd.Finder{Gate: b.reads, Env: &b.env, GoVersion: b.goVersion, Network: b.client.AllowsNetwork(),
		GoFlags: lspclient.LookupEnv(b.client.OfflineGoEnv(), "GOFLAGS")}
	mods := f.Find()
	b.modules.Put(epoch, false, "", mods)
	return mods
}

// loadFix returns the first module's loadFix; "" if none has one.
func (b *Bridge) loadFix() string {
	for _, m := range b.diskModules() {
		if m.LoadFix != "" {
			return m.LoadFix
		}
	}
	return ""
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
	covered := func(m gocmd.Module) bool {
		return known[m.GoMod] || slices.Contains(roots, m.Dir)
	}
	opened := 0
	for _, m := range mods {
		if covered(m) || m.GoFile == "" || len(m.Local) == 0 || opened == maxNestedViews {
			continue
		}
		// gopls makes a build for a module when one of its files is open.
		src, err := b.buffers.Open(ctx, b.caller(ctx), m.GoFile)
		if err != nil {
			b.log.Debug("opening a nested module's file", "error", err)
			continue
		}
		src.Release()
		opened++
	}
	if opened > 0 {
		if known, roots, err = b.knownModules(ctx); err != nil {
			return nil, err
		}
	}
	var files []string
	for _, m := range mods {
		if m.GoFile != "" && covered(m) {
			files = append(files, lspclient.FileURI(m.GoFile))
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
func (b *Bridge) missingModules() []gocmd.Module {
	var out []gocmd.Module
	for _, m := range b.diskModules() {
		if len(m.Missing) > 0 {
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
		for _, req := range m.Missing {
			path, _, _ := strings.Cut(req, "@")
			if namesModule(message, path) {
				return fmt.Sprintf("module %s is not in the module cache: %s", req, b.missingHint(b.displayPath(m.Dir)))
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
		reqs = append(reqs, m.Missing...)
	}
	if len(reqs) == 1 {
		return fmt.Sprintf("module %s is not in the module cache: %s", reqs[0], b.missingHint(b.displayPath(mods[0].Dir)))
	}
	return fmt.Sprintf("modules %s are not in the module cache: %s", strings.Join(reqs, ", "), b.missingHint(b.displayPath(mods[0].Dir)))
}

// missingImportAt returns the hint when the identifier at line and char
// of src (0-based, UTF-16) names, or is in the import of, a package of a
// module missing from the module cache: gopls knows nothing of it.
func (b *Bridge) missingImportAt(src *buffer.Source, line, char int) string {
	if len(b.missingModules()) == 0 {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src.Text, parser.ImportsOnly)
	if err != nil && f == nil {
		return ""
	}
	text := src.Line(line)
	ident := symbol.IdentAt(text, char)
	// What precedes the identifier, for a selection name.X.
	start := min(len(text), iplace.ByteOffset(text, char))
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
