package bridge

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
)

// At is how a tool call names a place in the code: a file and either a
// position (0-based line and UTF-16 character, optionally anchored by the
// identifier expected there) or a symbol.
type At struct {
	File      string `json:"file,omitempty" jsonschema:"path of a Go file, relative to the workspace root or absolute inside it"`
	Line      *int   `json:"line,omitempty" jsonschema:"0-based line of the position"`
	Character *int   `json:"character,omitempty" jsonschema:"0-based column of the position in UTF-16 code units"`
	Name      string `json:"name,omitempty" jsonschema:"identifier expected at the position; if it is not there, the nearest occurrence on that line or the lines next to it is used"`
	Symbol    string `json:"symbol,omitempty" jsonschema:"instead of a position: Name, pkg.Name, Type.Method, pkg.Type.Method or (*Type).Method, resolved in the scope of file"`
}

// A target is a resolved place: a file as gopls holds it and a position.
type target struct {
	src       *source
	line      int
	character int
	// note says how the position was found when it is not the one given,
	// e.g. after snapping to name.
	note string
}

// resolve turns an At into a target, or says which fields to send.
func (b *Bridge) resolve(ctx context.Context, at At) (*target, error) {
	hasPos := at.Line != nil || at.Character != nil
	switch {
	case at.File == "":
		return nil, errors.New("file is required: pass file with line and character, or file with symbol")
	case hasPos && at.Symbol != "":
		return nil, errors.New("pass either line and character, or symbol, not both")
	case !hasPos && at.Symbol == "":
		return nil, errors.New("pass line and character (0-based), or symbol, to say where in the file")
	case hasPos && (at.Line == nil || at.Character == nil):
		return nil, errors.New("line and character go together; pass both (0-based)")
	}
	path, err := b.resolveFile(at.File)
	if err != nil {
		return nil, err
	}
	src, err := b.open(ctx, path)
	if err != nil {
		return nil, err
	}
	if at.Symbol != "" {
		return b.resolveSymbol(ctx, src, at.Symbol)
	}
	t := &target{src: src, line: *at.Line, character: *at.Character}
	if at.Name != "" {
		if err := t.snap(at.Name); err != nil {
			return nil, err
		}
		return t, nil
	}
	if err := src.checkPosition(t.line, t.character); err != nil {
		return nil, err
	}
	return t, nil
}

// snap moves t onto the identifier name: the one at t if it is there, else
// the nearest occurrence on t's line, then the lines above and below, up
// to two lines away. Models often miss lines by one; this absorbs it.
func (t *target) snap(name string) error {
	if t.line < 0 || t.character < 0 {
		return errors.New("line and character are 0-based and must not be negative")
	}
	found := false
	var bestLine, bestCol, bestDL, bestDC int
	for l := t.line - 2; l <= t.line+2; l++ {
		for _, col := range identColumns(t.src.line(l), name) {
			dl, dc := abs(l-t.line), abs(col-t.character)
			if dl == 0 && t.character >= col && t.character <= col+utf16Len(name) {
				dc = 0
			}
			if !found || dl < bestDL || (dl == bestDL && dc < bestDC) {
				found, bestLine, bestCol, bestDL, bestDC = true, l, col, dl, dc
			}
		}
	}
	if !found {
		return fmt.Errorf("%s is not on line %d or the two lines either side of it; check the line (0-based) or pass symbol instead", quote(name), t.line)
	}
	if bestDL != 0 || bestDC != 0 {
		t.note = fmt.Sprintf("position moved from %d:%d to %d:%d, where %s is", t.line, t.character, bestLine, bestCol, name)
	}
	t.line, t.character = bestLine, bestCol
	return nil
}

// identColumns returns the UTF-16 columns at which the Go identifier name
// occurs as a whole token on line.
func identColumns(line, name string) []int {
	if line == "" || name == "" {
		return nil
	}
	var cols []int
	var s scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(line))
	s.Init(f, []byte(line), func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.IDENT && lit == name {
			cols = append(cols, utf16Col(line, f.Offset(pos)))
		}
	}
	return cols
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// position is the LSP position of t.
func (t *target) position() map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": t.src.uri},
		"position":     map[string]any{"line": t.line, "character": t.character},
	}
}
