package bridge

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"go.lsp.dev/protocol"
)

// Position is a place in a file: 0-based line and UTF-16 character.
type Position struct {
	Line      int `json:"line" jsonschema:"0-based line"`
	Character int `json:"character" jsonschema:"0-based UTF-16 column"`
}

// Range is the text between two positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Edit replaces the text of a range of a file with new text. Ranges refer
// to the file before any of the edits.
type Edit struct {
	File    string `json:"file" jsonschema:"path relative to the workspace root"`
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// Changes are changes to files, as a unified diff: it says all the edits
// say, with context, and git apply takes it. They are proposed, and
// written only with --allow-write and apply: true.
type Changes struct {
	Applied *bool  `json:"applied,omitempty" jsonschema:"whether the edits were written (apply: true with --allow-write); false when only proposed; left out when there is nothing to change"`
	Edits   int    `json:"edits" jsonschema:"number of edits"`
	Files   int    `json:"files,omitempty" jsonschema:"number of files they change"`
	Diff    string `json:"diff,omitempty" jsonschema:"the edits as a unified diff (git apply -p1 ready)"`
}

// render is the lean text of changes: a line that says whether they were
// written, so that a model never takes a proposal for a done change, then
// the unified diff, which says everything the edits say.
func (c *Changes) render(nothing string) string {
	if c.Edits == 0 {
		return nothing
	}
	state := "not applied"
	if c.Applied != nil && *c.Applied {
		state = "applied"
	}
	return fmt.Sprintf("%s: %s in %s\n%s", state, render.Plural(c.Edits, "edit"), render.Plural(c.Files, "file"), strings.TrimSuffix(c.Diff, "\n"))
}

// editsFrom turns gopls's workspace edit into an edit set (see
// edit.From), with the text each file has in gopls's buffers or on disk;
// other sessions' snippets are left out.
func (b *Bridge) editsFrom(ctx context.Context, we *edit.WorkspaceEdit, asked time.Time) (*edit.Set, error) {
	return edit.From(we, asked, edit.Source{
		Gate:     b.reads,
		Foreign:  func(uri string) bool { return b.buffers.Foreign(b.caller(ctx), uri) },
		Document: func(uri string) (string, int32, bool) { return b.client.Document(uri) },
	})
}

// changes renders the set for a result: how many edits in how many
// files, and the unified diff, with paths relative to the root.
func (b *Bridge) changes(es *edit.Set) (Changes, error) {
	var out Changes
	var err error
	if out.Edits, out.Files, out.Diff, err = es.Diff(); err != nil {
		return Changes{}, err
	}
	if out.Edits > 0 {
		out.Applied = new(bool)
	}
	return out, nil
}

// editList lists the edits of es by file and position, with paths
// relative to the root.
func (b *Bridge) editList(es *edit.Set) []Edit {
	var out []Edit
	for _, fe := range es.Files {
		name := b.displayPath(fe.Path)
		edits := slices.Clone(fe.Edits)
		slices.SortStableFunc(edits, func(x, y protocol.TextEdit) int { return iplace.ComparePos(x.Range.Start, y.Range.Start) })
		for _, e := range edits {
			out = append(out, Edit{File: name, NewText: e.NewText, Range: Range{
				Start: Position{Line: int(e.Range.Start.Line), Character: int(e.Range.Start.Character)},
				End:   Position{Line: int(e.Range.End.Line), Character: int(e.Range.End.Character)},
			}})
		}
	}
	return out
}

// String renders an edit on one line: file:line:char-line:char "new text".
func (e Edit) String() string {
	return fmt.Sprintf("%s:%d:%d-%d:%d %q", e.File, e.Range.Start.Line, e.Range.Start.Character,
		e.Range.End.Line, e.Range.End.Character, e.NewText)
}
