package place

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
)

// Positions as people and the Go toolchain read them. go build, go vet,
// go test and gofmt print file:line:col with the line counted from 1 and
// the column from 1 in bytes; every editor's status bar and every agent's
// file reader count lines from 1. Every position an answer shows, and
// every position argument of goplsmcp's own tools, is written that way
// here and nowhere else; gopls's 0-based lines and UTF-16 characters stay
// on the wire (see Target and LineIndex) and are converted at the edges.

// Pos is a position as go build and go vet print it: a 1-based line and a
// 1-based column counted in bytes. The zero Pos is no position.
type Pos struct {
	Line   int `json:"line" jsonschema:"1-based line, as go build and go vet print it"`
	Column int `json:"column" jsonschema:"1-based column counted in bytes, as go build and go vet print it"`
}

// String writes p as line:col.
func (p Pos) String() string {
	var b strings.Builder
	p.write(&b)
	return b.String()
}

func (p Pos) write(b *strings.Builder) {
	var num [20]byte
	b.Write(strconv.AppendInt(num[:0], int64(p.Line), 10))
	b.WriteByte(':')
	b.Write(strconv.AppendInt(num[:0], int64(p.Column), 10))
}

// In writes p in file, as file:line:col.
func (p Pos) In(file string) string { return file + ":" + p.String() }

// Text writes p followed by text, as line:col: text, or line:col alone
// when text is empty: a place in a list of its file's places.
func (p Pos) Text(text string) string {
	var b strings.Builder
	p.write(&b)
	if text != "" {
		b.WriteString(": ")
		b.WriteString(text)
	}
	return b.String()
}

// Span is a range as go vet prints one: line:col-line:col, its end
// exclusive, both ends 1-based with byte columns.
type Span struct {
	Start Pos `json:"start"`
	End   Pos `json:"end" jsonschema:"just past the range's last byte"`
}

// String writes s as line:col-line:col.
func (s Span) String() string {
	var b strings.Builder
	s.Start.write(&b)
	b.WriteByte('-')
	s.End.write(&b)
	return b.String()
}

// In writes s in file, as file:line:col-line:col.
func (s Span) In(file string) string { return file + ":" + s.String() }

// ParsePos reads line:col as String writes it.
func ParsePos(s string) (Pos, error) {
	l, c, ok := strings.Cut(s, ":")
	line, err1 := strconv.Atoi(l)
	col, err2 := strconv.Atoi(c)
	if !ok || err1 != nil || err2 != nil || line < 1 || col < 1 {
		return Pos{}, fmt.Errorf("%q is not a position; write line:column, both counted from 1", s)
	}
	return Pos{Line: line, Column: col}, nil
}

// ParseSpan reads line:col-line:col as Span.String writes it.
func ParseSpan(s string) (Span, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return Span{}, fmt.Errorf("%q is not a range; write line:column-line:column, counted from 1", s)
	}
	start, err := ParsePos(a)
	if err != nil {
		return Span{}, err
	}
	end, err := ParsePos(b)
	if err != nil {
		return Span{}, err
	}
	return Span{Start: start, End: end}, nil
}

// FromLSP is the Pos of the LSP position p (0-based line, 0-based UTF-16
// character) on a line whose text is line. Where the text is not known
// (a place outside the read gate), or p lies past its end, each UTF-16
// unit beyond it counts as a byte, as it does in ASCII.
func FromLSP(line string, p protocol.Position) Pos {
	char := int(p.Character)
	off := ByteOffset(line, char)
	if n := UTF16Len(line); char > n {
		off += char - n
	}
	return Pos{Line: int(p.Line) + 1, Column: off + 1}
}

// SpanFromLSP is the Span of the LSP range r, on lines whose texts are
// start and end.
func SpanFromLSP(start, end string, r protocol.Range) Span {
	return Span{Start: FromLSP(start, r.Start), End: FromLSP(end, r.End)}
}

// LSP is the LSP position of p on a line whose text is line: 0-based line
// and UTF-16 character. A column past the line's end counts each byte
// beyond it as a unit.
func (p Pos) LSP(line string) protocol.Position {
	off := p.Column - 1
	char := UTF16Col(line, off)
	if off > len(line) {
		char += off - len(line)
	}
	return protocol.Position{Line: uint32(max(p.Line-1, 0)), Character: uint32(max(char, 0))}
}

// ErrNotPositive is the error of a line or column below 1.
var ErrNotPositive = errors.New("line and column count from 1, as go build and go vet print them, and must be at least 1")

// Check reports whether p addresses a place in a text of the given lines
// (without their line ends): a line of it, and a column from 1 to one
// past the line's last byte. The error says what is valid.
func (p Pos) Check(lines []string) error {
	switch {
	case p.Line < 1 || p.Column < 1:
		return ErrNotPositive
	case p.Line > len(lines):
		return fmt.Errorf("line %d is past the end of the file, which has lines 1 to %d", p.Line, len(lines))
	}
	if n := len(lines[p.Line-1]); p.Column > n+1 {
		return fmt.Errorf("column %d is past the end of line %d, which has %d bytes (columns 1 to %d)", p.Column, p.Line, n, n+1)
	}
	return nil
}

// Loc is a place in the code as tools report it: its file, its position
// as go build prints it (1-based line, 1-based byte column) and its
// source line.
type Loc struct {
	File string `json:"file" jsonschema:"path relative to the workspace root, or $GOROOT/... or $GOMODCACHE/... for read-only context"`
	Pos
	Text string `json:"text,omitempty" jsonschema:"the source line, trimmed"`
}

// String renders the location as file:line:col: text, or file:line:col
// when there is no text.
func (l Loc) String() string { return l.File + ":" + l.Pos.Text(l.Text) }
