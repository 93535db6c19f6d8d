package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// symbolKinds names LSP symbol kinds in Go's own words.
var symbolKinds = [...]string{
	1: "file", 2: "module", 3: "namespace", 4: "package", 5: "type", 6: "method",
	7: "property", 8: "field", 9: "constructor", 10: "enum", 11: "interface",
	12: "func", 13: "var", 14: "const", 15: "string", 16: "number", 17: "bool",
	18: "array", 19: "object", 20: "key", 21: "null", 22: "enum member",
	23: "struct", 24: "event", 25: "operator", 26: "type parameter",
}

// symbolKind names the LSP symbol kind k.
func symbolKind(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// limitOr checks a limit argument and applies the tool's default to zero.
func limitOr(limit, def int) (int, error) {
	if limit < 0 {
		return 0, errors.New("limit must be positive; leave it out for the default")
	}
	if limit == 0 {
		return def, nil
	}
	return limit, nil
}

// openFile resolves a file argument inside the root and makes gopls hold
// its current text, for the tools that take a whole file.
func (b *Bridge) openFile(ctx context.Context, file string) (*source, error) {
	if file == "" {
		return nil, errors.New("file is required: pass the path of a Go file, relative to the workspace root")
	}
	path, err := b.resolveFile(file)
	if err != nil {
		return nil, err
	}
	return b.open(ctx, path)
}

// Places are the places of a list by file: each file's path, as the key,
// once, then its places as the text answer shows them, "line:character:
// source", in the order of the answer.
type Places = mcp.OrderedMap[[]string]

// Counts are numbers by file (or package): how many places a list has
// beyond those it shows.
type Counts = mcp.OrderedMap[int]

// place renders a place within its file as line:character: text, or
// line:character when there is no text.
func place(line, char int, text string) string {
	var b strings.Builder
	writePlace(&b, line, char, text)
	return b.String()
}

// writePlace writes place(line, char, text) to b.
func writePlace(b *strings.Builder, line, char int, text string) {
	var num [20]byte
	b.Write(strconv.AppendInt(num[:0], int64(line), 10))
	b.WriteByte(':')
	b.Write(strconv.AppendInt(num[:0], int64(char), 10))
	if text != "" {
		b.WriteString(": ")
		b.WriteString(text)
	}
}

// A placeList collects the places of an answer by file, in the order
// their files first come, listing at most limit of them; the others are
// counted by file in more.
type placeList struct {
	limit, listed, total int
	files                Places
	more                 Counts
}

func newPlaceList(limit int) *placeList { return &placeList{limit: limit} }

// add adds a place in file, rendered by p if it is listed.
func (l *placeList) add(file string, p func() string) {
	l.total++
	if l.listed == l.limit {
		*l.more.Ref(file)++
		return
	}
	l.listed++
	at := l.files.Ref(file)
	*at = append(*at, p())
}

// truncated reports whether some places were counted but not listed.
func (l *placeList) truncated() bool { return l.listed < l.total }

// renderPlaces writes each file's path followed by its places, one a line,
// then, for each file with places beyond the limit, how many.
func renderPlaces(b *strings.Builder, files *Places, more *Counts) {
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

// concurrency bounds the requests a tool has in flight at once: enough to
// keep gopls busy, few enough to leave room for other calls.
const concurrency = 8

// forEach calls f for every index below n, at most concurrency at a time,
// and returns once all calls have ended. It stops starting new calls when
// ctx is done.
func forEach(ctx context.Context, n int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, concurrency)
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}

// sortLocations orders locations in the workspace first, then by file and
// position.
func (b *Bridge) sortLocations(locs []protocol.Location) {
	outside := func(l protocol.Location) int {
		if p, err := lspclient.URIPath(string(l.URI)); err == nil && within(b.root, p) {
			return 0
		}
		return 1
	}
	slices.SortFunc(locs, func(x, y protocol.Location) int {
		return cmp.Or(cmp.Compare(outside(x), outside(y)), cmp.Compare(x.URI, y.URI),
			cmp.Compare(x.Range.Start.Line, y.Range.Start.Line),
			cmp.Compare(x.Range.Start.Character, y.Range.Start.Character))
	})
}

// filesIn counts the files of a list, listed or only counted.
func filesIn(files *Places, more *Counts) int {
	n := files.Len()
	for _, f := range more.Keys() {
		if _, listed := files.Get(f); !listed {
			n++
		}
	}
	return n
}
