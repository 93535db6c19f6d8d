package decl

import (
	"go/ast"
	"go/parser"
	"go/token"

	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// A File is a parsed Go file and the lines of the text it was parsed
// from.
type File struct {
	// AST is the file's syntax tree; Lines are its text's lines, without
	// line ends. Both are shared: never modify them.
	AST   *ast.File
	Lines []string

	tags bool // show struct tags
	fset *token.FileSet
	tf   *token.File
}

// NewFile returns the File of a tree parsed with fset from the text
// whose lines are given. Rendering a declaration (At, Func, Type, Value)
// hides comments in the tree for a moment: a tree shared with other
// goroutines is for positions only (Pos, Where, Offset).
func NewFile(fset *token.FileSet, f *ast.File, lines []string) *File {
	return &File{AST: f, Lines: lines, fset: fset, tf: fset.File(f.FileStart)}
}

// Options are what Files needs of its caller.
type Options struct {
	// Text returns the current text of the file at path: the text gopls
	// holds for an open document, else the disk's as the read gate
	// allows; false if it cannot be read. It is required.
	Text func(path string) (string, bool)
	// Lines keeps the lines of texts between calls; nil keeps them for
	// this Files only.
	Lines *memo.Lines
	// Tags keeps struct field tags in signatures: they cost many tokens
	// and matter only now and then, so only detailed answers show them.
	Tags bool
}

// Files parses each file once per call. Text gopls holds for an open
// document wins over the disk (see Options.Text), so that positions
// match gopls's. It is not safe for concurrent use.
type Files struct {
	opt   Options
	files map[string]*File
}

// NewFiles returns an empty Files reading texts as opt says.
func NewFiles(opt Options) *Files {
	if opt.Lines == nil {
		opt.Lines = new(memo.Lines)
	}
	return &Files{opt: opt, files: make(map[string]*File)}
}

// Get returns the parsed file at path, or nil if it cannot be read or
// parsed at all.
func (c *Files) Get(path string) *File {
	if g, ok := c.files[path]; ok {
		return g
	}
	var g *File
	if text, ok := c.opt.Text(path); ok {
		// Parsed afresh, not through a shared memo: signatures are
		// printed by hiding comments in the tree for a moment.
		fset := token.NewFileSet()
		f, _ := parser.ParseFile(fset, path, text, parser.ParseComments|parser.SkipObjectResolution)
		if f != nil {
			g = NewFile(fset, f, c.opt.Lines.Lines(path, text))
			g.tags = c.opt.Tags
		}
	}
	c.files[path] = g
	return g
}

// Pos converts a 0-based line and UTF-16 column into a position, or
// token.NoPos if the line is not in the file.
func (g *File) Pos(line, char int) token.Pos {
	if line < 0 || line >= len(g.Lines) || line >= g.tf.LineCount() {
		return token.NoPos
	}
	return g.tf.LineStart(line+1) + token.Pos(place.ByteOffset(g.Lines[line], char))
}

// Where returns the 0-based line and UTF-16 column of p.
func (g *File) Where(p token.Pos) (int, int) {
	pos := g.fset.Position(p)
	line := pos.Line - 1
	if line < 0 || line >= len(g.Lines) {
		return line, pos.Column - 1
	}
	return line, place.UTF16Col(g.Lines[line], pos.Column-1)
}

// PosOf is where p is as answers show it: 1-based line, byte column.
func (g *File) PosOf(p token.Pos) place.Pos {
	pos := g.fset.Position(p)
	return place.Pos{Line: pos.Line, Column: pos.Column}
}

// Offset returns the byte offset of p in the file's text.
func (g *File) Offset(p token.Pos) int { return g.tf.Offset(p) }
