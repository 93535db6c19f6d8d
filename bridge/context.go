package bridge

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/decl"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// defaultContextLimit bounds the declarations go_context lists.
const defaultContextLimit = 200

// maxContextDeclLines bounds the source shown of one declaration: a
// var holding a table must not fill the answer.
const maxContextDeclLines = 30

// ContextInput is the input of go_context, gopls mcp's optional tool.
type ContextInput struct {
	File  string `json:"file" jsonschema:"the Go file (root-relative or absolute)"`
	Limit int    `json:"limit,omitempty" jsonschema:"most declarations listed, default 200"`
}

// ContextOutput is the result of go_context.
type ContextOutput struct {
	Package  string                         `json:"package" jsonschema:"the import path of the file's package"`
	Name     string                         `json:"name" jsonschema:"the package's name"`
	Files    Places                         `json:"files" jsonschema:"the package's files, the file asked about first, each with its declarations: doc comment and signature of functions, source of the others"`
	Imports  []string                       `json:"imports,omitempty" jsonschema:"the import paths of the file"`
	Imported mcp.OrderedMap[ContextPackage] `json:"imported,omitzero" jsonschema:"the file's imports outside the standard library, by import path, with their exported declarations"`
	More     Counts                         `json:"more,omitzero" jsonschema:"by file, declarations beyond the limit, not listed"`
	Notes    Notes                          `json:"notes,omitempty" jsonschema:"how to see the declarations counted in more, as the text says it"`
}

// ContextPackage is an imported package's exported declarations.
type ContextPackage struct {
	Name  string `json:"name" jsonschema:"the package's name"`
	Files Places `json:"files" jsonschema:"by file, its exported declarations"`
}

// Render implements mcp.Renderer: the package, each file and its
// declarations, the file's imports, then each imported package.
func (o *ContextOutput) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s (%s)\n", o.Package, o.Name)
	first := true
	files := func(fs *Places) {
		fs.All(func(file string, decls []string) {
			b.WriteString(file)
			if first {
				b.WriteString(" (this file)")
				first = false
			}
			b.WriteString("\n")
			for _, d := range decls {
				b.WriteString(d + "\n")
			}
			if n, ok := o.More.Get(file); ok {
				fmt.Fprintf(&b, "… %d more declarations%s\n", n, o.Notes.Parens())
			}
		})
	}
	files(&o.Files)
	if len(o.Imports) > 0 {
		b.WriteString("imports: " + strings.Join(o.Imports, ", ") + "\n")
	}
	o.Imported.All(func(path string, p ContextPackage) {
		fmt.Fprintf(&b, "\npackage %s (%s)\n", path, p.Name)
		files(&p.Files)
	})
	return strings.TrimSuffix(b.String(), "\n")
}

// contextTool is go_context's entry in the catalogue (see ToolSpec).
var contextTool = ToolSpec{
	Name:        "go_context",
	Title:       "Package context of a file",
	Description: "Context for a Go file: the declarations of its package's files, its imports, and the exported declarations of the imported packages outside the standard library (gopls mcp's go_context).",
	Narrow:      "narrow the call: pass a smaller limit, or use go_file_context",
	Optional:    true,
	Instruction: "gopls mcp's optional tools, under its names and parameters.",
	Doc:         "for a `file`: its package's files with their declarations (functions by doc comment and signature, other declarations whole), the file's imports, and the exported declarations of the imported packages outside the standard library",
	Framing:     []string{`\(this file\)`, `^imports: `, `^package `, `^… \d+ more declarations`},
	Good:        Sample{Args: `{"file": "main.go"}`, Want: "imports: fmt, example.com/shapes/report, example.com/shapes/shapes"},
	Bad:         Sample{Args: `{"file": "nope.go"}`, Want: `^file "nope\.go" does not exist; `},
	add:         func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.contextOf) },
}

func (b *Bridge) contextOf(ctx context.Context, in *ContextInput) (*ContextOutput, error) {
	limit, err := limitOr(in.Limit, defaultContextLimit)
	if err != nil {
		return nil, err
	}
	src, err := b.buffers.OpenFile(ctx, b.caller(ctx), in.File)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	pkg, err := b.graph.FilePackage(ctx, src.Path)
	if err != nil {
		return nil, err
	}
	out := &ContextOutput{Package: pkg.Path, Name: pkg.Name}
	listed := 0
	add := func(files *Places, file string, decls []string) {
		n := min(len(decls), limit-listed)
		*files.Ref(file) = append([]string{}, decls[:n]...)
		listed += n
		if n < len(decls) {
			out.More.Set(file, len(decls)-n)
			out.Notes = Notes{render.RaiseToSee}
		}
	}
	fset, f, _ := b.parsed.Parse(src.Path, src.Text, parser.ParseComments|parser.SkipObjectResolution)
	if f == nil {
		return nil, fmt.Errorf("cannot parse %s", b.displayPath(src.Path))
	}
	add(&out.Files, b.displayPath(src.Path), summarizeFile(b, src.Path, src.Text, false))
	for _, file := range pkg.Files {
		if file == src.Path {
			continue
		}
		text, ok := b.buffers.CurrentText(file)
		if !ok {
			continue
		}
		add(&out.Files, b.displayPath(file), summarizeFile(b, file, text, false))
	}

	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		out.Imports = append(out.Imports, path)
		if gocmd.IsStdPath(path) {
			// Models know the standard library; its API costs tokens.
			continue
		}
		if _, done := out.Imported.Get(path); done {
			continue
		}
		dir, name, err := b.targets.ImportedPackageDir(ctx, src, fset, imp)
		if err != nil {
			continue
		}
		files, err := b.packageFiles(ctx, dir)
		if err != nil {
			continue
		}
		p := ContextPackage{Name: name}
		for _, file := range files {
			text, ok := b.buffers.CurrentText(file)
			if !ok {
				continue
			}
			add(&p.Files, b.displayPath(file), summarizeFile(b, file, text, true))
		}
		out.Imported.Set(path, p)
	}
	return out, nil
}

// packageFiles lists the files gopls builds the package in dir from.
func (b *Bridge) packageFiles(ctx context.Context, dir string) ([]string, error) {
	file, _, err := b.graph.Walk(ctx, nil).Imports(dir)
	if err != nil {
		return nil, err
	}
	var res struct{ Files []string }
	if err := b.client.ExecuteCommand(ctx, "gopls.package_symbols", map[string]any{"URI": lspclient.FileURI(file)}, &res); err != nil {
		return nil, ask.Error(err)
	}
	var out []string
	for _, uri := range res.Files {
		if p, err := lspclient.URIPath(uri); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// summarizeFile lists a file's declarations as go_context shows them:
// a function by its doc comment and signature, any other declaration by
// its source (at most maxContextDeclLines of it). exportedOnly keeps what
// another package can use: exported functions and methods of exported
// types, and the exported specs of a declaration.
func summarizeFile(b *Bridge, path, text string, exportedOnly bool) []string {
	fset, f, _ := b.parsed.Parse(path, text, parser.ParseComments|parser.SkipObjectResolution)
	if f == nil {
		return []string{}
	}
	tf := fset.File(f.FileStart)
	slice := func(from, to token.Pos) string { return text[tf.Offset(from):tf.Offset(to)] }
	decls := []string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if exportedOnly && (!d.Name.IsExported() || d.Recv != nil && !token.IsExported(symbol.ReceiverType(d))) {
				continue
			}
			decls = append(decls, slice(decl.DocStart(d), d.Type.End()))
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			if !exportedOnly {
				decls = append(decls, capLines(slice(decl.DocStart(d), d.End())))
				continue
			}
			var specs []string
			for _, spec := range d.Specs {
				var start, end token.Pos
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					start, end = s.Pos(), decl.LineEnd(s.End(), s.Comment)
					if s.Doc != nil {
						start = s.Doc.Pos()
					}
				case *ast.ValueSpec:
					exported := false
					for _, n := range s.Names {
						exported = exported || n.IsExported()
					}
					if !exported {
						continue
					}
					start, end = s.Pos(), decl.LineEnd(s.End(), s.Comment)
					if s.Doc != nil {
						start = s.Doc.Pos()
					}
				}
				if d.Lparen.IsValid() {
					// With the indentation it has in the group.
					if ls := lineStart(tf, start); strings.TrimSpace(slice(ls, start)) == "" {
						start = ls
					}
				}
				specs = append(specs, slice(start, end))
			}
			if len(specs) == 0 {
				continue
			}
			var s strings.Builder
			if d.Doc != nil {
				s.WriteString(slice(d.Doc.Pos(), d.Doc.End()) + "\n")
			}
			if d.Lparen.IsValid() {
				s.WriteString(d.Tok.String() + " (\n" + strings.Join(specs, "\n") + "\n)")
			} else {
				s.WriteString(d.Tok.String() + " " + specs[0])
			}
			decls = append(decls, capLines(s.String()))
		}
	}
	return decls
}

// lineStart is the start of p's line.
func lineStart(tf *token.File, p token.Pos) token.Pos { return tf.LineStart(tf.Line(p)) }

// capLines cuts s after maxContextDeclLines lines, saying how many more
// there are.
func capLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= maxContextDeclLines {
		return s
	}
	return strings.Join(lines[:maxContextDeclLines], "") + fmt.Sprintf("// … %d more lines", len(lines)-maxContextDeclLines)
}
