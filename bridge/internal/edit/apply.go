package edit

import (
	"errors"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"go.lsp.dev/protocol"
)

// Apply returns before with the LSP text edits made, in the order of
// their starts; positions past a line's end or the text's end are
// clamped. Overlapping edits are an error.
func Apply(before string, edits []protocol.TextEdit) (string, error) {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(x, y protocol.TextEdit) int { return place.ComparePos(x.Range.Start, y.Range.Start) })
	idx := place.NewLineIndex(before)
	var b strings.Builder
	last := 0
	for _, e := range edits {
		start, end := idx.Offset(e.Range.Start), idx.Offset(e.Range.End)
		if start < last || end < start {
			return "", errors.New("gopls proposed overlapping edits; retry the call")
		}
		b.WriteString(before[last:start])
		b.WriteString(e.NewText)
		last = end
	}
	b.WriteString(before[last:])
	return b.String(), nil
}
