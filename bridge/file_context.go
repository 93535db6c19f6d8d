package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/decl"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/bridge/internal/target"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

const defaultFileContextLimit = 100

// FileContextInput is the input of go_file_context.
type FileContextInput struct {
	File     string `json:"file" jsonschema:"Go file (root-relative or absolute)"`
	Limit    int    `json:"limit,omitempty" jsonschema:"default 100"`
	Detailed bool   `json:"detailed,omitempty" jsonschema:"add doc comments"`
}

// FileContextOutput is the result of go_file_context.
type FileContextOutput struct {
	File    string `json:"file"`
	Package string `json:"package" jsonschema:"import path of the file's package"`
	Total   int    `json:"total,omitempty" jsonschema:"declarations from other files that the file uses, when fewer are listed"`
	Notes   Notes  `json:"notes,omitempty" jsonschema:"that the list is cut at limit, and whose text is withheld since it lies outside the workspace root, as the text says it"`
	// Packages holds, by package, by file, each declaration as
	// line:col: signature (and its doc comment, when detailed).
	Packages mcp.OrderedMap[Places] `json:"packages" jsonschema:"the declarations used by package (the file's own first), then by file, as line:col: signature; 1-based, byte columns, as go vet prints them"`
	More     Counts                 `json:"more,omitzero" jsonschema:"by declaring file, how many are beyond the limit, not listed"`

	found int // what Total says, listed or not
}

// Render implements mcp.Renderer.
func (o *FileContextOutput) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is in package %s and uses %s from other files", o.File, o.Package, render.Plural(o.found, "declaration"))
	b.WriteString(o.Notes.Parens() + "\n")
	o.Packages.All(func(pkg string, files Places) {
		b.WriteString("package " + pkg + "\n")
		render.WritePlaces(&b, &files, &Counts{})
	})
	o.More.All(func(file string, n int) {
		fmt.Fprintf(&b, "%s: %d more\n", file, n)
	})
	return strings.TrimSuffix(b.String(), "\n")
}

// contextDecl is one declaration the file uses.
type contextDecl struct {
	file      string
	line      int // as gopls counts them, to order
	character int
	at        iplace.Pos // as answers show it
	signature string     // the declaration on one line
	doc       string     // its doc comment (detailed only)
}

// fileContextTool is go_file_context's entry in the catalogue (see ToolSpec).
var fileContextTool = ToolSpec{
	Name:        "go_file_context",
	Title:       "What a Go file uses",
	Description: "What a Go file uses from other files and packages, as one-line signatures: read before editing it.",
	Narrow:      "narrow the call: pass a smaller limit, and leave detailed out",
	Instruction: "what a file uses from other files; read before editing.",
	Skill:       "What does this file use from other files? (read before editing it)",
	Doc:         "a `file`'s package and the declarations it uses from other files and packages, as one-line signatures",
	Summary:     "a file's package and the declarations it uses from other files and packages",
	Framing:     []string{` is in package `, ` and uses \d+ declarations from other files`, `^package `},
	Good:        Sample{Args: `{"file": "report/report.go", "detailed": true}`, Want: "uses 3 declarations from other files"},
	Bad:         Sample{Args: `{"file": "nope.go"}`, Want: `^file "nope\.go" does not exist; `},
	Questions: []string{
		"what does this file import and use from other files",
		"summarize the contents of a file before editing it",
		"what does this file depend on from other packages",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.fileContext) },
}

// A use is where the file refers to a name, found by syntax, whose
// declaration gopls locates.
type use struct {
	line, char int
}

// A declAt is where gopls says a name is declared.
type declAt struct {
	path       string
	line, char int
}

// A pkgDecl is a declaration the file uses and the package declaring it.
type pkgDecl struct {
	pkg  string
	d    contextDecl
	path string // of the file declaring it
}

func (b *Bridge) fileContext(ctx context.Context, in *FileContextInput) (*FileContextOutput, error) {
	limit, err := limitOr(in.Limit, defaultFileContextLimit)
	if err != nil {
		return nil, err
	}
	src, err := b.buffers.OpenFile(ctx, b.caller(ctx), in.File)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	if !strings.HasSuffix(src.Path, ".go") {
		return nil, fmt.Errorf("%s is not a Go file; pass a .go file", b.displayPath(src.Path))
	}
	fset := token.NewFileSet()
	// Object resolution (on by default) tells names declared in the file
	// from the rest.
	f, err := parser.ParseFile(fset, src.Path, src.Text, 0)
	if f == nil {
		return nil, fmt.Errorf("cannot parse %s: %s", b.displayPath(src.Path), render.ClipN(err.Error(), ask.MessageChars))
	}
	uses := usesOf(f, func(p token.Pos) use {
		pos := fset.Position(p)
		line := pos.Line - 1
		return use{line: line, char: iplace.UTF16Col(src.Line(line), pos.Column-1)}
	})
	if len(uses) > openFirstUses {
		// Hundreds of requests about one file: gopls keeps the
		// type-checked package of an open file, and checks that of a
		// closed one afresh for each (the first context of
		// net/http/server.go, 899 requests, took minutes on a busy
		// machine), so the file is opened first.
		src.OpenInGopls()
	}
	at, err := b.declarationsOf(ctx, src, uses)
	if err != nil {
		return nil, err
	}

	paths := gocmd.NewImportPaths(&b.env, b.reads)
	own := paths.Of(filepath.Dir(src.Path))
	if strings.HasSuffix(f.Name.Name, "_test") {
		own += "_test"
	}
	decls := b.contextDecls(at, paths, filepath.Dir(src.Path), in.Detailed)
	slices.SortFunc(decls, func(a, b pkgDecl) int {
		return cmp.Or(render.FalseFirst(a.pkg != own, b.pkg != own), cmp.Compare(a.pkg, b.pkg),
			cmp.Compare(a.d.file, b.d.file), cmp.Compare(a.d.line, b.d.line), cmp.Compare(a.d.character, b.d.character))
	})

	out := &FileContextOutput{File: b.displayPath(src.Path), Package: own, found: len(decls)}
	var declPaths []string
	for _, x := range decls {
		declPaths = append(declPaths, x.path)
	}
	files, withheld := b.notShown(declPaths...)
	for i, x := range decls {
		if i >= limit {
			if out.Total == 0 {
				out.Total = out.found
				out.Notes.Add(render.Truncated)
			}
			*out.More.Ref(x.d.file)++
			continue
		}
		text := x.d.signature
		if x.d.doc != "" {
			text += "\n// " + strings.ReplaceAll(x.d.doc, "\n", "\n// ")
		}
		at := out.Packages.Ref(x.pkg).Ref(x.d.file)
		*at = append(*at, x.d.at.Text(text))
	}
	if note := b.withheldText(withheld, "declaration", files); note != "" {
		out.Notes.Add(note)
	}
	return out, nil
}

// openFirstUses is how many uses make go_file_context open its file in
// gopls before it asks about them rather than after its answer (see
// docs/workspaces.md): a few requests cost gopls less than the analysis
// that opening starts.
const openFirstUses = 32

// defKey is a use whose declaration gopls was asked for.
type defKey struct {
	uri        string
	line, char int
}

// definitions are gopls's answer to one definition request; shared once
// kept, never modified.
type definitions = []protocol.Location

// maxCachedDefinitions bounds the declarations kept (see Bridge.defs): a
// large file's uses (net/http/server.go has about 900), a few dozen times.
const maxCachedDefinitions = 1 << 15

// declarationsOf asks gopls where each use is declared, a few requests at
// a time, and returns the distinct declarations outside src, leaving out
// the predeclared ones of package builtin. gopls answers the same until it
// is told of a change, so what it answered since the last one is not
// asked again: a large file is hundreds of requests, most of the call's
// time.
func (b *Bridge) declarationsOf(ctx context.Context, src *buffer.Source, uses []use) ([]declAt, error) {
	gen := b.client.Generation()
	found := make([][]protocol.Location, len(uses))
	asked := make([]bool, len(uses))
	errs := make([]error, len(uses))
	ask.ForEach(ctx, len(uses), func(i int) {
		k := defKey{src.URI, uses[i].line, uses[i].char}
		if locs, ok := b.defs.Get(gen, k); ok {
			found[i] = locs
			return
		}
		t := &target.Target{Src: src, Line: uses[i].line, Character: uses[i].char}
		errs[i] = b.client.Call(ctx, "textDocument/definition", t.Position(), &found[i])
		asked[i] = errs[i] == nil
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	answers := map[defKey]definitions{}
	for i, ok := range asked {
		if ok {
			answers[defKey{src.URI, uses[i].line, uses[i].char}] = found[i]
		}
	}
	b.defs.Keep(gen, b.client.Changed(gen), answers)
	for _, err := range errs {
		// A name gopls cannot resolve (a syntax error nearby) is left out;
		// gopls failing as a whole is not.
		var re *lspclient.ResponseError
		if err != nil && !errors.As(err, &re) {
			return nil, ask.Error(err)
		}
	}
	builtin := filepath.Join(b.env.GOROOT(), "src", "builtin")
	seen := map[declAt]bool{}
	var at []declAt
	for _, locs := range found {
		for _, l := range locs {
			p, err := lspclient.URIPath(string(l.URI))
			if err != nil || p == src.Path || filepath.Dir(p) == builtin {
				continue
			}
			k := declAt{p, int(l.Range.Start.Line), int(l.Range.Start.Character)}
			if !seen[k] {
				seen[k] = true
				at = append(at, k)
			}
		}
	}
	return at, nil
}

// contextDecls renders the declarations at the given places, read from
// their files, for a file in dir. A field or interface method is left out
// when its type is listed too, whose signature shows it already.
func (b *Bridge) contextDecls(at []declAt, paths *gocmd.ImportPaths, dir string, detailed bool) []pkgDecl {
	files := decl.NewFiles(decl.Options{Text: b.buffers.CurrentText, Lines: &b.lines, Tags: detailed})
	infos := make([]*decl.Info, len(at))
	types := map[declAt]bool{}
	for i, k := range at {
		if g := files.Get(k.path); g != nil {
			// Another package's unexported members are of no use here.
			infos[i] = g.At(g.Pos(k.line, k.char), paths.Of(filepath.Dir(k.path)) != paths.Of(dir))
			if infos[i] != nil && infos[i].Kind == "type" {
				types[k] = true
			}
		}
	}
	var decls []pkgDecl
	for i, k := range at {
		d := contextDecl{file: b.displayPath(k.path), line: k.line, character: k.char}
		d.at = iplace.FromLSP("", protocol.Position{Line: uint32(k.line), Character: uint32(k.char)})
		pkg := paths.Of(filepath.Dir(k.path))
		if g := files.Get(k.path); g != nil {
			if k.line < len(g.Lines) {
				d.at = iplace.FromLSP(g.Lines[k.line], protocol.Position{Line: uint32(k.line), Character: uint32(k.char)})
			}
			if strings.HasSuffix(g.AST.Name.Name, "_test") {
				pkg += "_test"
			}
			switch info := infos[i]; {
			case info != nil && info.Owner.IsValid():
				line, char := g.Where(info.Owner)
				if types[declAt{k.path, line, char}] {
					continue
				}
				fallthrough
			case info != nil:
				d.signature = info.Sig
				if detailed {
					d.doc = strings.TrimSpace(info.Doc)
				}
			case k.line < len(g.Lines):
				// Not a declaration syntax knows (e.g. a name declared
				// by a generated file gopls sees differently): its line.
				d.signature = strings.TrimSpace(g.Lines[k.line])
			}
		}
		if pkg == "" {
			pkg = filepath.ToSlash(filepath.Dir(d.file))
		}
		decls = append(decls, pkgDecl{pkg, d, k.path})
	}
	return decls
}

// usesOf finds, by syntax, the names f refers to that may be declared
// elsewhere, one position per distinct name: identifiers the file does not
// declare (other files' declarations), qualified identifiers (imported
// packages'), selections (fields and methods, keyed by what they select
// from) and the field names of composite literals. Predeclared names are
// left out. where converts a position.
func usesOf(f *ast.File, where func(token.Pos) use) []use {
	imports := symbol.ImportNames(f)
	unresolved := make(map[*ast.Ident]bool, len(f.Unresolved))
	for _, id := range f.Unresolved {
		unresolved[id] = true
	}
	isPkg := func(x ast.Expr) (*ast.Ident, bool) {
		id, ok := x.(*ast.Ident)
		return id, ok && unresolved[id] && imports[id.Name] != nil
	}
	seen := map[string]bool{}
	var uses []use
	add := func(key string, id *ast.Ident) {
		if !seen[key] {
			seen[key] = true
			uses = append(uses, where(id.Pos()))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.SelectorExpr:
			if x, ok := isPkg(n.X); ok {
				add("pkg "+x.Name+"."+n.Sel.Name, n.Sel)
				return false
			}
			add("sel "+selectionKey(n.X)+"."+n.Sel.Name, n.Sel)
		case *ast.CompositeLit:
			// Keys of a literal of a type declared in this file are
			// declared here too.
			if id, ok := n.Type.(*ast.Ident); ok && id.Obj != nil {
				return true
			}
			typ := types.ExprString(n.Type)
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && !unresolved[k] && k.Obj == nil {
						add("key "+typ+"."+k.Name, k)
					}
				}
			}
		case *ast.Ident:
			if unresolved[n] && imports[n.Name] == nil && types.Universe.Lookup(n.Name) == nil {
				add("id "+n.Name, n)
			}
		}
		return true
	})
	return uses
}

// selectionKey identifies what a selection selects from: the declaration
// of a name declared in the file, so that two variables of the same name
// are told apart, or else the expression's text.
func selectionKey(x ast.Expr) string {
	if id, ok := x.(*ast.Ident); ok && id.Obj != nil {
		return fmt.Sprintf("%s@%d", id.Name, id.Obj.Pos())
	}
	return types.ExprString(x)
}
