package bridge

import (
	"context"
	"fmt"
	"os"
	"strings"
	"unicode/utf16"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// maxFileBytes bounds a file the bridge reads to show or send.
const maxFileBytes = 8 << 20

// A source is the text of one file as gopls holds it for this call.
type source struct {
	path  string // absolute
	uri   string
	text  string
	lines []string // without line ends
}

func newSource(path, text string) *source {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return &source{path: path, uri: lspclient.FileURI(path), text: text, lines: lines}
}

// open reads a file inside the root from disk and makes gopls hold exactly
// that text, so that positions in the answer match what the caller sees.
func (b *Bridge) open(ctx context.Context, path string) (*source, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	src := newSource(path, string(data))
	if _, err := b.client.Sync(ctx, src.uri, src.text); err != nil {
		return nil, goplsError(err)
	}
	return src, nil
}

func readBounded(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if fi.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, larger than the %d bytes goplsmcp reads", path, fi.Size(), maxFileBytes)
	}
	return os.ReadFile(path)
}

// line returns line i, or "" when out of range.
func (s *source) line(i int) string {
	if i < 0 || i >= len(s.lines) {
		return ""
	}
	return s.lines[i]
}

// checkPosition reports whether line and character (0-based, UTF-16)
// address a place in the file, with a message saying what is valid.
func (s *source) checkPosition(line, char int) error {
	if line < 0 || char < 0 {
		return fmt.Errorf("line and character are 0-based and must not be negative")
	}
	if line >= len(s.lines) {
		return fmt.Errorf("line %d is past the end of the file, which has lines 0 to %d", line, len(s.lines)-1)
	}
	if n := utf16Len(s.lines[line]); char > n {
		return fmt.Errorf("character %d is past the end of line %d, which has %d UTF-16 code units", char, line, n)
	}
	return nil
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// byteOffset converts a UTF-16 column on line to a byte offset in it.
func byteOffset(line string, char int) int {
	n := 0
	for i, r := range line {
		if n >= char {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}

// utf16Col converts a byte offset in line to a UTF-16 column.
func utf16Col(line string, off int) int {
	if off > len(line) {
		off = len(line)
	}
	return utf16Len(line[:off])
}
