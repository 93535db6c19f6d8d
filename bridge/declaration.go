package bridge

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/decl"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// defaultSourceLines bounds the lines of source go_source shows.
const defaultSourceLines = 200

// SourceInput is the input of go_source.
type SourceInput struct {
	At
	Limit int `json:"limit,omitempty" jsonschema:"most lines, default 200"`
}

// SourceOutput is the result of go_source.
type SourceOutput struct {
	URI    string `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer the call named, for later calls"`
	Note   string `json:"note,omitempty" jsonschema:"how the target was found, when not as given"`
	File   string `json:"file" jsonschema:"the declaring file: relative to the root, or $GOROOT/... or $GOMODCACHE/module@version/..."`
	Range  string `json:"range" jsonschema:"the declaration's range, doc comment included, as line:col-line:col (end exclusive); 1-based, byte columns, as go vet prints them"`
	Within string `json:"within,omitempty" jsonschema:"the declaration it is part of, and its range: a const, var or type group, or the type of a field or method"`
	Source string `json:"source" jsonschema:"the exact source of the range"`
	More   int    `json:"more,omitempty" jsonschema:"lines beyond limit, not shown"`
	Notes  Notes  `json:"notes,omitempty" jsonschema:"how to see the lines counted in more, as the text says it"`
}

// Render implements mcp.Renderer: path:range (and what the declaration
// is part of), then the source, then how many lines were left out.
func (o *SourceOutput) Render() string {
	var b strings.Builder
	if o.URI != "" {
		b.WriteString("buffer " + o.URI + "\n")
	}
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	b.WriteString(o.File + ":" + o.Range)
	if o.Within != "" {
		b.WriteString(", in " + o.Within)
	}
	b.WriteString("\n")
	b.WriteString(strings.TrimSuffix(o.Source, "\n"))
	if o.More > 0 {
		noun := "lines"
		if o.More == 1 {
			noun = "line"
		}
		fmt.Fprintf(&b, "\n… %d more %s%s", o.More, noun, o.Notes.Parens())
	}
	return b.String()
}

// sourceTool is go_source's entry in the catalogue (see ToolSpec).
var sourceTool = ToolSpec{
	Name:        "go_source",
	Title:       "Declaration source",
	Description: "Show the code of a function, method, type, const or var: its declaration's exact source and doc comment, by symbol (e.g. \"(*Server).Serve\") or at a use. Instead of reading the whole file.",
	Narrow:      "narrow the call: pass a smaller limit",
	Instruction: "show me the code: one function, method or type, not the whole file.",
	Skill:       "Show me one function, method or type's code, not the whole file",
	Doc:         "the exact source of one declaration, its doc comment included and nothing around it: a function, a method, a type with its fields, a const or var (a group member with the group's range), a field; by `symbol`, or at a position (a use: the declaration it refers to), in the workspace, the standard library or the module cache; with its range as `line:col-line:col`, so an edit can target it; over `limit` lines (200) it is cut at a line and says how many are left",
	Summary:     "the exact source of one declaration, doc comment included",
	Framing:     []string{`, in `, `^… \d+ more lines?`},
	Good:        Sample{Args: `{"file": "main.go", "symbol": "report.Summary"}`, Want: "func Summary(list []shapes.Shape) string {"},
	Bad:         Sample{Args: `{"file": "main.go", "symbol": "report.Nope"}`, Want: `^symbol "report\.Nope" is not declared `},
	Questions: []string{
		"show me the source code of a method",
		"read the body of a function without opening the whole file",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.source) },
}

func (b *Bridge) source(ctx context.Context, in *SourceInput) (*SourceOutput, error) {
	limit, err := limitOr(in.Limit, defaultSourceLines)
	if err != nil {
		return nil, err
	}
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	path, text := t.Src.Path, t.Src.Text
	line, char := t.Line, t.Character
	if in.Symbol == "" {
		// At a use, the declaration it refers to; at a declaration,
		// the declaration itself.
		var locs []protocol.Location
		if err := b.client.Call(ctx, "textDocument/definition", t.Position(), &locs); err != nil {
			return nil, ask.Error(err)
		}
		if len(locs) == 0 {
			return nil, fmt.Errorf("no declaration for what is at %s; point at an identifier, or pass symbol", t.Pos())
		}
		p, err := lspclient.URIPath(string(locs[0].URI))
		if err != nil {
			return nil, err
		}
		if p != path {
			if !b.reads.Shows(p) {
				return nil, errors.New(b.withheldNote(p))
			}
			var ok bool
			if text, ok = b.buffers.CurrentText(p); !ok {
				return nil, fmt.Errorf("cannot read %s, where the declaration is", b.displayPath(p))
			}
			path = p
		}
		line, char = int(locs[0].Range.Start.Line), int(locs[0].Range.Start.Character)
	}
	fset, f, _ := b.parsed.Parse(path, text, parser.ParseComments|parser.SkipObjectResolution)
	if f == nil {
		return nil, fmt.Errorf("cannot parse %s, where the declaration is", b.displayPath(path))
	}
	g := decl.NewFile(fset, f, b.lines.Lines(path, text))
	sp, err := declSpan(g, g.Pos(line, char))
	if err != nil {
		return nil, err
	}
	out := &SourceOutput{URI: t.Buffer, Note: joinNotes(t.Note, sp.note), File: b.displayPath(path), Range: rangeOf(g, sp.start, sp.end)}
	if sp.within != nil {
		out.Within = sp.withinWhat + " at " + rangeOf(g, sp.within.Pos(), sp.within.End())
	}
	src := text[g.Offset(sp.start):g.Offset(sp.end)]
	lines := strings.SplitAfter(src, "\n")
	if len(lines) > limit {
		out.More, out.Notes = len(lines)-limit, Notes{render.RaiseToSee}
		src = strings.Join(lines[:limit], "")
	}
	out.Source = src
	return out, nil
}

func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// rangeOf renders the range from start to end as line:col-line:col.
func rangeOf(g *decl.File, start, end token.Pos) string {
	return iplace.Span{Start: g.PosOf(start), End: g.PosOf(end)}.String()
}

// A span is the text of a declaration in its file.
type span struct {
	start, end token.Pos
	// within is the declaration it is part of, if any: a group, or the
	// type of a field; withinWhat says which.
	within     ast.Node
	withinWhat string
	note       string
}

// declSpan finds the declaration whose name is at p, and the text it
// spans: its doc comment, the declaration, and a comment that ends its
// last line. A name declared inside a function spans the function.
func declSpan(g *decl.File, p token.Pos) (span, error) {
	if !p.IsValid() {
		return span{}, errors.New("the declaration's position is past the end of its file; the file changed, retry the call")
	}
	if f := g.AST; f.Name != nil && p >= f.Package && p <= f.Name.End() {
		return span{}, fmt.Errorf("that is package %s; ask go_package_api for its API", f.Name.Name)
	}
	for _, d := range g.AST.Decls {
		if p < decl.DocStart(d) || p > d.End() {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			sp := span{start: decl.DocStart(d), end: d.End()}
			if d.Name.Pos() != p {
				sp.note = fmt.Sprintf("%s is declared inside %s; this is %s's source", identNear(g, p), funcName(d), funcName(d))
			}
			return sp, nil
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				return span{}, errors.New("that is an imported package; ask go_package_api for its API")
			}
			for _, spec := range d.Specs {
				if p < spec.Pos() || p > spec.End() {
					continue
				}
				var doc, comment *ast.CommentGroup
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if sp, ok := memberSpan(g, s, p); ok {
						return sp, nil
					}
					doc, comment = s.Doc, s.Comment
				case *ast.ValueSpec:
					doc, comment = s.Doc, s.Comment
				}
				if !d.Lparen.IsValid() {
					// The declaration is the spec: its doc is d's.
					return span{start: decl.DocStart(d), end: decl.LineEnd(d.End(), comment)}, nil
				}
				sp := span{start: spec.Pos(), end: decl.LineEnd(spec.End(), comment), within: d, withinWhat: d.Tok.String() + " group"}
				if doc != nil {
					sp.start = doc.Pos()
				}
				return sp, nil
			}
			// Between the specs: the group itself.
			return span{start: decl.DocStart(d), end: d.End()}, nil
		}
	}
	return span{}, errors.New("no declaration there; point at a declared name or a use of one, or pass symbol")
}

// memberSpan is the span of the struct field or interface method of s
// named at p, if p names one.
func memberSpan(g *decl.File, s *ast.TypeSpec, p token.Pos) (span, bool) {
	list := symbol.MemberList(s.Type)
	if list == nil || p < list.Opening {
		return span{}, false
	}
	for _, f := range list.List {
		if p < f.Pos() || p > f.End() {
			continue
		}
		sp := span{start: f.Pos(), end: decl.LineEnd(f.End(), f.Comment), within: s, withinWhat: "type " + s.Name.Name}
		if f.Doc != nil {
			sp.start = f.Doc.Pos()
		}
		return sp, true
	}
	return span{}, false
}

// funcName names a function or method as go_source's notes do.
func funcName(d *ast.FuncDecl) string {
	if recv := symbol.ReceiverType(d); recv != "" {
		return "method " + recv + "." + d.Name.Name
	}
	return "func " + d.Name.Name
}

// identNear is the identifier at p, for a note.
func identNear(g *decl.File, p token.Pos) string {
	line, char := g.Where(p)
	if line < 0 || line >= len(g.Lines) {
		return "it"
	}
	if id := symbol.IdentAt(g.Lines[line], char); id != "" {
		return id
	}
	return "it"
}
