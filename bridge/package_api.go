package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/decl"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

const defaultPackageAPILimit = 200

// PackageAPIInput is the input of go_package_api.
type PackageAPIInput struct {
	PackagePaths []string `json:"packagePaths" jsonschema:"import paths, e.g. [\"net/http\"]"`
	Limit        int      `json:"limit,omitempty" jsonschema:"default 200, over all packages"`
	Detailed     bool     `json:"detailed,omitempty" jsonschema:"add full docs and positions"`
}

// PackageAPIOutput is the result of go_package_api.
type PackageAPIOutput struct {
	Total    int                        `json:"total,omitempty" jsonschema:"exported declarations found, methods included, when fewer are listed"`
	Notes    Notes                      `json:"notes,omitempty" jsonschema:"that the list is cut at limit and how to see more, as the text says it"`
	Packages mcp.OrderedMap[PackageAPI] `json:"packages" jsonschema:"by import path"`

	truncated bool // fewer than total are listed
}

// PackageAPI is the exported API of one package.
type PackageAPI struct {
	Name  string `json:"name,omitempty" jsonschema:"package name"`
	Dir   string `json:"dir,omitempty" jsonschema:"its directory (detailed only)"`
	Doc   string `json:"doc,omitempty" jsonschema:"package documentation: first sentence, or all when detailed"`
	Error string `json:"error,omitempty" jsonschema:"why the package could not be described"`
	Decls Places `json:"decls,omitzero" jsonschema:"by the name of the file that declares them: constants, variables, functions, then types each followed by its methods, as signature // first doc sentence, or when detailed line:col: signature then the whole doc; 1-based, byte columns, as go vet prints them"`
	More  int    `json:"more,omitempty" jsonschema:"declarations beyond the limit, not listed"`
}

// apiDecl is one exported declaration.
type apiDecl struct {
	name, sig, doc string
	file           string
	at             iplace.Pos
}

// entry renders d as go_package_api lists it.
func (d apiDecl) entry(detailed bool) string {
	switch {
	case detailed:
		s := d.at.Text(d.sig)
		if d.doc != "" {
			s += "\n" + strings.TrimSuffix(comment(d.doc, "\t"), "\n")
		}
		return s
	case d.doc != "":
		return d.sig + " // " + d.doc
	}
	return d.sig
}

// Render implements mcp.Renderer.
func (o *PackageAPIOutput) Render() string {
	var b strings.Builder
	if o.truncated {
		fmt.Fprintf(&b, "%s%s\n", render.Plural(o.Total, "declaration"), o.Notes.Parens())
	}
	for i, path := range o.Packages.Keys() {
		p, _ := o.Packages.Get(path)
		if i > 0 {
			b.WriteString("\n")
		}
		if p.Error != "" {
			fmt.Fprintf(&b, "%s: %s\n", path, p.Error)
			continue
		}
		fmt.Fprintf(&b, "package %s %q", p.Name, path)
		if p.Dir != "" {
			fmt.Fprintf(&b, " in %s", p.Dir)
		}
		if p.More > 0 {
			listed := declCount(&p.Decls)
			fmt.Fprintf(&b, " (%d of %d declarations listed)", listed, listed+p.More)
		}
		b.WriteString("\n")
		if p.Doc != "" {
			b.WriteString(comment(p.Doc, ""))
		}
		p.Decls.All(func(file string, decls []string) {
			b.WriteString(file + ":\n")
			for _, d := range decls {
				b.WriteString(d + "\n")
			}
		})
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// comment renders text as // lines, each prefixed by indent.
func comment(text, indent string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		b.WriteString(strings.TrimRight(indent+"// "+l, " ") + "\n")
	}
	return b.String()
}

// packageAPITool is go_package_api's entry in the catalogue (see ToolSpec).
var packageAPITool = ToolSpec{
	Name:        "go_package_api",
	Title:       "Package API",
	Description: "Exported API of packages by import path, like go doc: one-line signatures and first doc sentences; workspace, standard library or dependencies.",
	Narrow:      "narrow the call: pass fewer packagePaths, a smaller limit, and leave detailed out",
	Instruction: "a package's exported API: workspace, standard library or dependency.",
	Skill:       "A package's exported API (workspace, standard library, dependency)",
	Doc:         "the exported API of `packagePaths` (workspace, standard library or dependency): signatures and first doc sentences",
	Summary:     "the exported API of packages: signatures and first doc sentences",
	Framing:     []string{`^\d+ declarations?`, `^package `, ` in `, `\(\d+ of \d+ declarations? listed\)`},
	Good:        Sample{Args: `{"packagePaths": ["example.com/shapes/shapes"], "detailed": true}`, Want: "func TotalArea(shapes ...Shape) float64"},
	Bad:         Sample{Args: `{"packagePaths": ["example.com/nope"]}`, Want: `^example\.com/nope: no such package `},
	Questions: []string{
		"what does package net/http export",
		"public API of a dependency",
		"go doc for a package",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.packageAPI) },
}

// go_package_api keeps the packages it described (see memo.Gen): a
// package's API depends on its files and on gopls's view of the
// workspace, and both move the generation when they change, but only for
// directories the watcher sees every change in. So a package is kept only
// where its directory is watched, and used only while it still is;
// packages elsewhere (outside the root, off Linux) are described afresh
// each time.

// apiKey names one go_package_api answer for a package.
type apiKey struct {
	path     string
	detailed bool
}

// apiEntry is a described package and the directory it was read from.
type apiEntry struct {
	dir string
	api PackageAPI // its Decls are shared: never modified
}

// maxCachedPackages bounds the packages kept.
const maxCachedPackages = 128

func (b *Bridge) packageAPI(ctx context.Context, in *PackageAPIInput) (*PackageAPIOutput, error) {
	// A package that just appeared on disk is found by its path too.
	ctx = lspclient.WorkspaceWide(ctx)
	if len(in.PackagePaths) == 0 {
		return nil, errors.New(`packagePaths is empty; pass import paths such as ["fmt"] or ["example.com/m/store"]`)
	}
	limit, err := limitOr(in.Limit, defaultPackageAPILimit)
	if err != nil {
		return nil, err
	}
	out := &PackageAPIOutput{}
	var errs []string // the packages that failed
	files := decl.NewFiles(decl.Options{Text: b.buffers.CurrentText, Lines: &b.lines, Tags: in.Detailed})
	var workspace map[string]string
	gen := b.client.Generation()
	described := map[apiKey]apiEntry{}
	for _, arg := range in.PackagePaths {
		path, err := gocmd.ImportPathArg(arg)
		if err != nil {
			return nil, err
		}
		if e, ok := b.apis.Get(gen, apiKey{path, in.Detailed}); ok && b.client.Watched(e.dir) {
			out.Packages.Set(path, e.api)
			continue
		}
		var p PackageAPI
		if workspace == nil {
			if workspace, err = b.graph.Workspace(ctx, b.caller(ctx)); err != nil {
				return nil, err
			}
		}
		dir, err := b.graph.PackageDir(ctx, path, workspace)
		if err == nil {
			err = b.packageWithheld(dir)
		}
		if err == nil {
			err = b.describePackage(ctx, files, dir, &p, in.Detailed)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			p.Error = err.Error()
			errs = append(errs, path)
		} else if b.client.Watched(dir) && !strings.Contains(path, "/.goplsmcp/") {
			// Kept only where every change is seen, and never a
			// snippet's package, which is its session's own.
			described[apiKey{path, in.Detailed}] = apiEntry{dir: dir, api: p}
		}
		out.Packages.Set(path, p)
	}
	b.apis.Keep(gen, b.client.Changed(gen), described)
	if len(errs) == 1 && out.Packages.Len() == 1 {
		p, _ := out.Packages.Get(errs[0])
		return nil, fmt.Errorf("%s: %s", errs[0], p.Error)
	}
	listed := 0
	for _, path := range out.Packages.Keys() {
		p := out.Packages.Ref(path)
		all := declCount(&p.Decls)
		out.Total += all
		if n := min(all, limit-listed); n < all {
			// p.Decls may be kept for later calls: copied, not changed.
			var kept Places
			left := n
			p.Decls.All(func(file string, decls []string) {
				if k := min(len(decls), left); k > 0 {
					kept.Set(file, decls[:k:k])
					left -= k
				}
			})
			p.Decls, p.More = kept, all-n
			out.truncated = true
		}
		listed += declCount(&p.Decls)
	}
	if out.truncated {
		out.Notes.Add("list truncated; raise limit or ask for fewer packages")
	} else {
		out.Total = 0
	}
	return out, nil
}

// declCount counts the declarations of every file.
func declCount(decls *Places) int {
	n := 0
	decls.All(func(_ string, d []string) { n += len(d) })
	return n
}

// describePackage fills p with the exported declarations of the package in
// dir. gopls names the package's files, honouring the build configuration
// it runs with; syntax gives the declarations.
func (b *Bridge) describePackage(ctx context.Context, files *decl.Files, dir string, p *PackageAPI, detailed bool) error {
	paths, err := b.apiFiles(ctx, dir)
	if err != nil {
		return err
	}
	if detailed {
		p.Dir = b.displayPath(dir)
	}
	api := apiDecls{detailed: detailed, methods: map[string][]apiDecl{}}
	for _, path := range paths {
		g := files.Get(path)
		if g == nil {
			continue
		}
		if p.Name == "" {
			p.Name = g.AST.Name.Name
		}
		if g.AST.Doc != nil && (p.Doc == "" || filepath.Base(path) == "doc.go") {
			p.Doc = strings.TrimSpace(g.AST.Doc.Text())
		}
		api.addFile(g, filepath.Base(path))
	}
	p.Doc = strings.TrimSpace(p.Doc)
	if !detailed {
		p.Doc = render.FirstSentence(p.Doc)
	}
	decls := api.ordered()
	// By file, as gopls mcp names them, in the order above within each.
	for _, path := range paths {
		file := filepath.Base(path)
		var inFile []string
		for _, d := range decls {
			if d.file == file {
				inFile = append(inFile, d.entry(detailed))
			}
		}
		if len(inFile) > 0 {
			p.Decls.Set(file, inFile)
		}
	}
	return nil
}

// apiFiles returns the sorted paths of the Go files gopls builds the
// package in dir from (tests apart), or the directory's files for this
// platform when gopls knows no package there.
func (b *Bridge) apiFiles(ctx context.Context, dir string) ([]string, error) {
	var candidates []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read its directory: %v", err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err == nil && ok {
			candidates = append(candidates, filepath.Join(dir, name))
		}
	}
	if len(candidates) == 0 {
		return nil, errors.New("its directory has no Go files for this platform")
	}
	var res struct {
		PackageName string
		Files       []string
	}
	if err := b.client.ExecuteCommand(ctx, "gopls.package_symbols", map[string]any{"URI": lspclient.FileURI(candidates[0])}, &res); err != nil {
		return nil, ask.Error(err)
	}
	var paths []string
	for _, uri := range res.Files {
		if path, err := lspclient.URIPath(uri); err == nil && filepath.Dir(path) == dir {
			paths = append(paths, path)
		}
	}
	if len(paths) <= 1 {
		// gopls knows no package for the file; take the directory's.
		paths = candidates
	}
	slices.Sort(paths)
	return paths, nil
}

// apiDecls gathers a package's exported declarations by kind, methods by
// their receiver type.
type apiDecls struct {
	detailed                   bool
	consts, vars, funcs, types []apiDecl
	methods                    map[string][]apiDecl
}

// addFile adds the exported declarations of g, the file named file.
func (a *apiDecls) addFile(g *decl.File, file string) {
	add := func(list *[]apiDecl, info *decl.Info, at token.Pos) {
		doc := strings.TrimSpace(info.Doc)
		if !a.detailed {
			doc = render.FirstSentence(doc)
		}
		*list = append(*list, apiDecl{name: info.Name, sig: info.Sig, doc: doc, file: file, at: g.PosOf(at)})
	}
	for _, d := range g.AST.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			recv := symbol.ReceiverType(d)
			switch {
			case d.Recv == nil:
				add(&a.funcs, g.Func(d), d.Name.Pos())
			case token.IsExported(recv):
				list := a.methods[recv]
				add(&list, g.Func(d), d.Name.Pos())
				a.methods[recv] = list
			}
		case *ast.GenDecl:
			for i, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						add(&a.types, g.Type(d, s, true), s.Name.Pos())
					}
				case *ast.ValueSpec:
					var names []string
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
					if len(names) == 0 {
						continue
					}
					info := g.Value(d, i, names[0])
					info.Name = strings.Join(names, ", ")
					if d.Tok == token.CONST {
						add(&a.consts, info, s.Names[0].Pos())
					} else {
						add(&a.vars, info, s.Names[0].Pos())
					}
				}
			}
		}
	}
}

// ordered lists the declarations as go doc does: constants, variables,
// functions, then each type followed by its methods, by name within each.
func (a *apiDecls) ordered() []apiDecl {
	byName := func(x, y apiDecl) int { return cmp.Compare(x.name, y.name) }
	slices.SortStableFunc(a.funcs, byName)
	slices.SortStableFunc(a.types, byName)
	decls := append(append(a.consts, a.vars...), a.funcs...)
	for _, t := range a.types {
		decls = append(decls, t)
		ms := a.methods[t.name]
		slices.SortStableFunc(ms, byName)
		decls = append(decls, ms...)
	}
	return decls
}

// packageWithheld says why the declarations of the package in dir are
// withheld: its directory, or one of its Go files, is outside the
// workspace root, and not in the Go installation or the module cache.
func (b *Bridge) packageWithheld(dir string) error {
	if iplace.Within(b.root, dir) && !b.reads.Confined(dir) {
		return errors.New("its directory is outside the workspace root, reached through " + b.via(dir) + ", so its declarations are withheld")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if hidden, _ := b.notShown(files...); len(hidden) > 0 {
		return errors.New("its files are outside the workspace root, reached through " + b.via(hidden...) + ", so its declarations are withheld")
	}
	return nil
}
