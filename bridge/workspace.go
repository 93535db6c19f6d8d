package bridge

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/modules"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// WorkspaceInput is the input of go_workspace.
type WorkspaceInput struct {
	// Dir, a directory of the workspace (a path relative to the root or
	// absolute inside it, or its file:// URI, as gopls mcp takes it),
	// narrows the answer to the module that holds it (see scopeOf). Its
	// schema has no description: the default tools' definitions had no
	// room left for one, and the name says it with the tool's docs.
	Dir string `json:"dir,omitempty"`
}

// WorkspaceOutput is the result of go_workspace.
type WorkspaceOutput struct {
	Root         string                          `json:"root" jsonschema:"the workspace root, absolute; file arguments are relative to it"`
	Dir          string                          `json:"dir,omitempty" jsonschema:"the directory asked about, relative to the root: the builds, modules and packages are those that hold it"`
	Gopls        string                          `json:"gopls" jsonschema:"the version of gopls answering"`
	GoplsGo      string                          `json:"goplsGo,omitempty" jsonschema:"the Go that built gopls, e.g. go1.27.3: gopls knows the Go language and standard library up to that one"`
	Go           string                          `json:"go,omitempty" jsonschema:"the Go toolchain gopls's go command runs, e.g. go1.27.3"`
	Skew         string                          `json:"skew,omitempty" jsonschema:"that gopls was built by a Go older than the workspace's go line or the go command's, so that it reports newer code as errors, and how to rebuild it"`
	Build        string                          `json:"build" jsonschema:"how packages are found: module, go.work, GOPATH, GOPACKAGESDRIVER, ad hoc, or mixed when the views differ"`
	GoWork       string                          `json:"goWork,omitempty" jsonschema:"the go.work file, when there is one"`
	Views        mcp.OrderedMap[string]          `json:"views,omitzero" jsonschema:"each build gopls keeps, by directory, listed when there is more than one"`
	Modules      mcp.OrderedMap[WorkspaceModule] `json:"modules" jsonschema:"the workspace's modules, by module path"`
	Packages     int                             `json:"packages" jsonschema:"number of packages in the workspace (test variants not counted)"`
	Loading      bool                            `json:"loading,omitempty" jsonschema:"set while gopls has not finished loading the workspace"`
	LoadError    string                          `json:"loadError,omitempty" jsonschema:"why loading the workspace failed, if it did"`
	ActiveWork   []string                        `json:"activeWork,omitempty" jsonschema:"work gopls is reporting progress on right now"`
	OpenBuffers  int                             `json:"openBuffers,omitempty" jsonschema:"files and overlays open in gopls"`
	Remote       string                          `json:"remote,omitempty" jsonschema:"the shared gopls daemon answering, through a forwarder (--remote), if any"`
	BuildContext *BuildContext                   `json:"buildContext,omitempty" jsonschema:"how many build flags, environment variables and gopls settings were fixed at launch (their values are not reported)"`
}

// WorkspaceModule is one module of the workspace.
type WorkspaceModule struct {
	GoMod string `json:"goMod" jsonschema:"its go.mod, relative to the root"`
	Go    string `json:"go,omitempty" jsonschema:"the go directive of its go.mod"`
	// NotLoaded marks a nested module gopls has no build for yet: it
	// makes one once a call names one of its files.
	Notes   Notes    `json:"notes,omitempty" jsonschema:"that gopls has not loaded it yet, and when it will, as the text says it"`
	Missing []string `json:"missing,omitempty" jsonschema:"its requirements missing from the module cache, as path@version: offline, their packages cannot be imported"`
	Fix     string   `json:"fix,omitempty" jsonschema:"the one command that gets the missing requirements"`
	Problem string   `json:"problem,omitempty" jsonschema:"why the go command loads none of its packages (a stale vendor directory, a newer go directive than the installed Go), and what fixes it"`
}

// Render implements mcp.Renderer.
func (o *WorkspaceOutput) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "root: %s\n", o.Root)
	if o.Dir != "" {
		fmt.Fprintf(&b, "directory: %s\n", o.Dir)
	}
	fmt.Fprintf(&b, "gopls %s", o.Gopls)
	if o.GoplsGo != "" {
		fmt.Fprintf(&b, " (built with %s)", o.GoplsGo)
	}
	if o.Go != "" {
		fmt.Fprintf(&b, " with %s", o.Go)
	}
	if o.Skew != "" {
		fmt.Fprintf(&b, "\n%s", o.Skew)
	}
	fmt.Fprintf(&b, "\nbuild: %s\n", o.Build)
	if o.GoWork != "" {
		fmt.Fprintf(&b, "workspace file: %s\n", o.GoWork)
	}
	o.Views.All(func(dir, build string) {
		fmt.Fprintf(&b, "  %s: %s\n", dir, build)
	})
	if o.Modules.Len() == 0 {
		b.WriteString("modules: none\n")
	} else {
		b.WriteString("modules:\n")
	}
	o.Modules.All(func(path string, m WorkspaceModule) {
		fmt.Fprintf(&b, "  %s: %s", path, m.GoMod)
		if m.Go != "" {
			fmt.Fprintf(&b, ", go %s", m.Go)
		}
		b.WriteString(m.Notes.Parens())
		b.WriteString("\n")
		if len(m.Missing) > 0 {
			fmt.Fprintf(&b, "    missing from the module cache: %s; %s\n", strings.Join(m.Missing, ", "), m.Fix)
		}
		if m.Problem != "" {
			fmt.Fprintf(&b, "    %s\n", m.Problem)
		}
	})
	fmt.Fprintf(&b, "packages: %d\n", o.Packages)
	switch {
	case o.LoadError != "":
		fmt.Fprintf(&b, "load failed: %s\n", o.LoadError)
	case o.Loading:
		b.WriteString("still loading\n")
	}
	if len(o.ActiveWork) > 0 {
		fmt.Fprintf(&b, "gopls is busy with: %s\n", strings.Join(o.ActiveWork, ", "))
	}
	fmt.Fprintf(&b, "open buffers: %d", o.OpenBuffers)
	if o.Remote != "" {
		fmt.Fprintf(&b, "\nshared gopls daemon: %s", o.Remote)
	}
	if bc := o.BuildContext; bc != nil {
		fmt.Fprintf(&b, "\nfixed at launch: %s, %s, %s", render.Plural(bc.BuildFlags, "build flag"),
			render.Plural(bc.Env, "environment variable"), render.Plural(bc.Settings, "gopls setting"))
	}
	return b.String()
}

// ResourceLinks implements mcp.Linker: the same answer is a resource.
func (o *WorkspaceOutput) ResourceLinks() []mcp.ResourceLink {
	return []mcp.ResourceLink{{URI: workspaceURI, Name: "workspace", MIMEType: "application/json",
		Description: "This answer as a resource."}}
}

// workspaceTool is go_workspace's entry in the catalogue (see ToolSpec).
var workspaceTool = ToolSpec{
	Name:        "go_workspace",
	Title:       "Go workspace summary",
	Description: "Workspace summary: modules (go.mod), Go and gopls versions, build kind, package count, load state. A good first call: waits for gopls to load.",
	Narrow:      "the summary has no parts to leave out, so ask the person running goplsmcp to raise --max-result-bytes",
	Instruction: "modules, Go and gopls versions, load state; a good first call.",
	Skill:       "What is this workspace: modules, Go version, is it loaded? (a good first call)",
	Doc:         "modules (with their `go.mod` and `go` directive, and the `go.work` file), Go and gopls versions (and the Go that built gopls, with a sentence saying how to rebuild it when that Go is older than the workspace's `go` line or the `go` command's, which makes gopls report newer code as errors), build kind (module, go.work, GOPATH), package count, load state, the shared daemon (`--remote`) and how many build flags, variables and settings were fixed at launch; `dir` (a directory, or its `file://` URI, as `gopls mcp` takes it) narrows the answer to the builds and modules that hold it; waits for gopls to finish loading, so it is a good first call",
	Summary:     "modules, Go and gopls versions, build kind, package count, load state; a good first call",
	Framing:     []string{`^gopls \S+ (\(built with \S+\) )?with `, `^directory: `, `^workspace file: `, `^modules:$`, `^open buffers: `},
	Good:        Sample{Args: `{}`, Want: "example.com/shapes: go.mod"},
	Bad:         Sample{Args: `{"dir": "/etc"}`, Want: `^dir "/etc" is outside the workspace root; pass a path inside `},
	Questions: []string{
		"what go version and modules does this workspace use",
		"project overview: modules, go.mod and packages",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.workspaceCall) },
}

// workspaceCall is go_workspace's handler.
func (b *Bridge) workspaceCall(ctx context.Context, in *WorkspaceInput) (*WorkspaceOutput, error) {
	var dir string
	if in.Dir != "" {
		var err error
		if dir, err = b.addr.Dir(in.Dir); err != nil {
			return nil, err
		}
	}
	return b.workspace(ctx, dir)
}

// workspace answers go_workspace for the whole workspace, or, when dir is
// set, for the part of it that holds dir (see scopeOf).
func (b *Bridge) workspace(ctx context.Context, dir string) (*WorkspaceOutput, error) {
	// Packages that just appeared on disk are counted too.
	ctx = lspclient.WorkspaceWide(ctx)
	if !b.client.Loaded() {
		mcp.ReportProgress(ctx, "waiting for gopls to load the workspace")
	}
	gopls := b.client.GoplsBuild()
	out := &WorkspaceOutput{
		Root:    b.root,
		Gopls:   gopls.Version,
		GoplsGo: gopls.GoVersion,
		Go:      b.goVersion(),
	}
	if dir != "" {
		out.Dir = b.displayPath(dir)
	}
	if err := b.client.WaitLoaded(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out.LoadError = shortMessage(ask.Error(err))
	}
	out.Loading = !b.client.Loaded()
	// Nested modules that build with another of the tree get a build of
	// their own first, as for the workspace's diagnostics.
	if _, err := b.mods.WorkspaceFiles(ctx, b.caller(ctx)); err != nil {
		return nil, err
	}

	sc := b.scopeOf(dir)
	seen, err := b.workspaceViews(ctx, out, sc)
	if err != nil {
		return nil, err
	}
	b.workspaceModules(out, seen, sc)
	if seen.all == 0 && out.LoadError == "" {
		// gopls made no build at all: what keeps the go command from
		// loading the modules (a toolchain that is not here) is why.
		out.LoadError = b.mods.LoadFix()
	}
	out.Packages = len(seen.pkgs)
	out.Skew = b.mods.Skew()
	out.ActiveWork = b.client.ActiveWork()
	slices.Sort(out.ActiveWork)
	for _, uri := range b.client.OpenDocuments() {
		if !b.buffers.Foreign(b.caller(ctx), uri) {
			out.OpenBuffers++
		}
	}
	out.Remote = b.client.Remote()
	if b.buildCtx != (BuildContext{}) {
		bc := b.buildCtx
		out.BuildContext = &bc
	}
	return out, nil
}

// A scope is the part of the workspace that holds a directory dir: the
// module on disk that holds it (the innermost) with the modules of its
// go.work, and the modules inside dir; the builds (views) of those
// modules (a view's directory is its module's, or its go.work's) and
// those inside dir; the packages of those modules. Outside every module
// (GOPATH, ad hoc packages) it is the builds whose directory holds dir.
// gopls mcp answers for every view whose directory holds dir, which for
// a nested module's dir is the root module's view too, built or not.
type scope struct {
	dir    string
	gomods map[string]bool // the modules', by go.mod
	roots  map[string]bool // the directories of their views
	loose  bool            // no module holds dir
}

// scopeOf returns the scope of dir; nil, for the whole workspace, when
// dir is "".
func (b *Bridge) scopeOf(dir string) *scope {
	if dir == "" {
		return nil
	}
	sc := &scope{dir: dir, gomods: map[string]bool{}, roots: map[string]bool{}}
	mods := b.mods.OnDisk()
	var holder *gocmd.Module
	for i, m := range mods {
		if iplace.Within(m.Dir, dir) && (holder == nil || len(m.Dir) > len(holder.Dir)) {
			holder = &mods[i]
		}
	}
	sc.loose = holder == nil
	for _, m := range mods {
		if iplace.Within(dir, m.Dir) || holder != nil && (m.GoMod == holder.GoMod || holder.Work != "" && m.Work == holder.Work) {
			sc.gomods[m.GoMod] = true
			sc.roots[m.Dir] = true
			if m.Work != "" {
				sc.roots[filepath.Dir(m.Work)] = true
			}
		}
	}
	return sc
}

// hasView reports whether the view of directory root is in the scope.
func (sc *scope) hasView(root string) bool {
	return sc == nil || sc.roots[root] || iplace.Within(sc.dir, root) || sc.loose && iplace.Within(root, sc.dir)
}

// hasModule reports whether the module of go.mod gomod ("" for a package
// of no module) is in the scope.
func (sc *scope) hasModule(gomod string) bool {
	return sc == nil || sc.gomods[gomod] || gomod == "" && sc.loose
}

// viewsSeen is what gopls's views say of the workspace.
type viewsSeen struct {
	pkgs  map[string]bool   // the packages, tests apart
	known map[string]bool   // the go.mod files gopls builds
	views map[string]string // the build kind of each view's directory
	all   int               // how many views gopls keeps, in the scope or not
}

// workspaceViews lists gopls's views in sc, with their build kinds and the
// go.work file, and the packages of sc they build and their modules.
func (b *Bridge) workspaceViews(ctx context.Context, out *WorkspaceOutput, sc *scope) (viewsSeen, error) {
	var found []modules.View
	if err := b.client.ExecuteCommand(ctx, "gopls.views", nil, &found); err != nil {
		return viewsSeen{}, fmt.Errorf("listing gopls's views: %w", ask.Error(err))
	}
	seen := viewsSeen{pkgs: map[string]bool{}, known: map[string]bool{}, views: map[string]string{}, all: len(found)}
	kinds := map[string]bool{}
	var viewDirs []string
	for _, v := range found {
		root, err := lspclient.URIPath(v.Root)
		if err != nil || !sc.hasView(root) {
			continue
		}
		build := buildKind(v.Type)
		kinds[build] = true
		if _, dup := seen.views[root]; !dup {
			viewDirs = append(viewDirs, root)
		}
		seen.views[root] = build
		if v.Type == "GoWork" && out.GoWork == "" {
			if work := filepath.Join(root, "go.work"); iplace.Within(b.root, work) {
				out.GoWork = b.displayPath(work)
			}
		}
		if err := b.viewPackages(ctx, v, sc, seen); err != nil {
			return viewsSeen{}, err
		}
	}
	out.Build = buildOf(kinds)
	if len(viewDirs) > 1 {
		slices.Sort(viewDirs)
		for _, dir := range viewDirs {
			out.Views.Set(b.displayPath(dir), seen.views[dir])
		}
	}
	return seen, nil
}

// viewPackages adds the packages of sc that view v builds, and their
// go.mod files, to seen.
func (b *Bridge) viewPackages(ctx context.Context, v modules.View, sc *scope, seen viewsSeen) error {
	var res modules.Packages
	err := b.client.ExecuteCommand(ctx, "gopls.packages", map[string]any{
		"Files": []string{v.Root}, "Recursive": true,
	}, &res)
	if err != nil {
		return fmt.Errorf("listing packages: %w", ask.Error(err))
	}
	gomods := map[string]string{} // by module path
	for path, m := range res.Module {
		if gomod, err := lspclient.URIPath(m.GoMod); err == nil {
			gomods[path] = gomod
		}
	}
	for _, p := range res.Packages {
		gomod := gomods[p.ModulePath]
		if !sc.hasModule(gomod) {
			continue
		}
		if p.ForTest == "" && !b.buffers.ForeignPackage(b.caller(ctx), p.Path) {
			seen.pkgs[p.Path] = true
		}
		if gomod != "" {
			seen.known[gomod] = true
		}
	}
	return nil
}

// buildOf names the build of the workspace from its views' kinds.
func buildOf(kinds map[string]bool) string {
	switch len(kinds) {
	case 0:
		return "none"
	case 1:
		for k := range kinds {
			return k
		}
	}
	return "mixed"
}

// workspaceModules lists every go.mod under the root in sc, whether
// gopls builds it yet or not.
func (b *Bridge) workspaceModules(out *WorkspaceOutput, seen viewsSeen, sc *scope) {
	for _, m := range b.mods.OnDisk() {
		if !sc.hasModule(m.GoMod) {
			continue
		}
		wm := WorkspaceModule{GoMod: b.displayPath(m.GoMod), Go: m.GoVersion}
		if !seen.known[m.GoMod] && seen.views[m.Dir] == "" && m.LoadFix == "" {
			wm.Notes = Notes{"not loaded yet: gopls loads it once a call names one of its files"}
		}
		if len(m.Missing) > 0 {
			wm.Missing, wm.Fix = m.Missing, b.mods.Hint(b.displayPath(m.Dir))
		}
		wm.Problem = m.LoadFix
		if _, dup := out.Modules.Get(m.Path); !dup {
			out.Modules.Set(m.Path, wm)
		}
	}
}

// buildKind names a gopls view type (cache.ViewType) for a reader.
func buildKind(viewType string) string {
	switch viewType {
	case "GoMod":
		return "module"
	case "GoWork":
		return "go.work"
	case "GOPATH":
		return "GOPATH"
	case "GoPackages":
		return "GOPACKAGESDRIVER"
	case "AdHoc":
		return "ad hoc"
	}
	return viewType
}

// goVersion returns the version of the Go toolchain gopls's go command
// runs (see gocmd.Env.GoVersion).
func (b *Bridge) goVersion() string { return b.env.GoVersion() }

// shortMessage is the text of err, on one line and bounded, for a field
// that reports it.
func shortMessage(err error) string {
	var msg string
	if err != nil {
		msg = err.Error()
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}
