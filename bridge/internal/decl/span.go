package decl

import (
	"go/ast"
	"go/token"
)

// DocStart is where a declaration starts, its doc comment included.
func DocStart(d ast.Decl) token.Pos {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Doc != nil {
			return d.Doc.Pos()
		}
	case *ast.GenDecl:
		if d.Doc != nil {
			return d.Doc.Pos()
		}
	}
	return d.Pos()
}

// LineEnd extends end over comment, the line comment of what ends there.
func LineEnd(end token.Pos, comment *ast.CommentGroup) token.Pos {
	if comment != nil && comment.End() > end {
		return comment.End()
	}
	return end
}
