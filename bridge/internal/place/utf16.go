package place

import (
	"cmp"
	"go/scanner"
	"go/token"
	"strings"
	"unicode/utf16"

	"go.lsp.dev/protocol"
)

// Positions as tools and gopls give them: 0-based lines and UTF-16
// columns, against the byte offsets of Go text.

// UTF16Len is the length of s in UTF-16 code units.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// ByteOffset converts a UTF-16 column on line to a byte offset in it.
func ByteOffset(line string, char int) int {
	n := 0
	for i, r := range line {
		if n >= char {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}

// UTF16Col converts a byte offset in line to a UTF-16 column.
func UTF16Col(line string, off int) int {
	if off > len(line) {
		off = len(line)
	}
	return UTF16Len(line[:off])
}

// ComparePos orders LSP positions: by line, then by character.
func ComparePos(a, b protocol.Position) int {
	return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Character, b.Character))
}

// LineIndex converts LSP positions to byte offsets in a text.
type LineIndex struct {
	text  string
	start []int // byte offset of each line
}

// NewLineIndex indexes the lines of text.
func NewLineIndex(text string) *LineIndex {
	idx := &LineIndex{text: text, start: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			idx.start = append(idx.start, i+1)
		}
	}
	return idx
}

// Offset is the byte offset of p, clamped to the text: a character past
// the end of its line is the line's end, a line past the last is the end
// of the text.
func (idx *LineIndex) Offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(idx.start) {
		return len(idx.text)
	}
	end := len(idx.text)
	if line+1 < len(idx.start) {
		end = idx.start[line+1] - 1 // the \n
	}
	content := strings.TrimSuffix(idx.text[idx.start[line]:end], "\r")
	return idx.start[line] + ByteOffset(content, int(p.Character))
}

// IdentColumns returns the UTF-16 columns at which the Go identifier name
// occurs as a whole token on line.
func IdentColumns(line, name string) []int {
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
			cols = append(cols, UTF16Col(line, f.Offset(pos)))
		}
	}
	return cols
}
