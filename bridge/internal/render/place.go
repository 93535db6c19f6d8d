package render

import (
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// Places are the places of a list by file: each file's path, as the key,
// once, then its places as the text answer shows them, "line:col: source"
// (written by place.Pos), in the order of the answer.
type Places = mcp.OrderedMap[[]string]

// Counts are numbers by file (or package): how many places a list has
// beyond those it shows.
type Counts = mcp.OrderedMap[int]

// A PlaceList collects the places of an answer by file, in the order
// their files first come, listing at most limit of them; the others are
// counted by file in More.
type PlaceList struct {
	limit, listed, total int
	// Files are the places listed, More the places counted, by file.
	Files Places
	More  Counts
}

// NewPlaceList returns a list that lists at most limit places.
func NewPlaceList(limit int) *PlaceList { return &PlaceList{limit: limit} }

// Add adds a place in file, rendered by p if it is listed.
func (l *PlaceList) Add(file string, p func() string) {
	l.total++
	if l.listed == l.limit {
		*l.More.Ref(file)++
		return
	}
	l.listed++
	at := l.Files.Ref(file)
	*at = append(*at, p())
}

// Truncated reports whether some places were counted but not listed.
func (l *PlaceList) Truncated() bool { return l.listed < l.total }

// WritePlaces writes each file's path followed by its places, one a line,
// then, for each file with places beyond the limit, how many.
func WritePlaces(b *strings.Builder, files *Places, more *Counts) {
	files.All(func(file string, at []string) {
		b.WriteString(file + "\n")
		for _, p := range at {
			b.WriteString(p + "\n")
		}
	})
	more.All(func(file string, n int) {
		fmt.Fprintf(b, "%s: %d more\n", file, n)
	})
}

// FilesIn counts the files of a list, listed or only counted.
func FilesIn(files *Places, more *Counts) int {
	n := files.Len()
	for _, f := range more.Keys() {
		if _, listed := files.Get(f); !listed {
			n++
		}
	}
	return n
}

// Plural renders n and a noun, adding s when n is not 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// WithBuffer puts before text the line naming the snippet or overlay
// buffer a call analysed, when it named one, for later calls to use.
func WithBuffer(uri, text string) string {
	if uri == "" {
		return text
	}
	return "buffer " + uri + "\n" + text
}

// symbolKinds names LSP symbol kinds in Go's own words.
var symbolKinds = [...]string{
	1: "file", 2: "module", 3: "namespace", 4: "package", 5: "type", 6: "method",
	7: "property", 8: "field", 9: "constructor", 10: "enum", 11: "interface",
	12: "func", 13: "var", 14: "const", 15: "string", 16: "number", 17: "bool",
	18: "array", 19: "object", 20: "key", 21: "null", 22: "enum member",
	23: "struct", 24: "event", 25: "operator", 26: "type parameter",
}

// SymbolKind names the LSP symbol kind k in Go's words ("func", "type",
// "field"), or "kind k" for one LSP does not define.
func SymbolKind(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return fmt.Sprintf("kind %d", k)
}
