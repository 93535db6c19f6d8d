package edit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"go.lsp.dev/protocol"
)

// Edit replaces the text of a range of a file with new text. Ranges refer
// to the file before any of the edits, as go vet prints places: 1-based
// lines, 1-based byte columns, the end exclusive.
type Edit struct {
	File    string     `json:"file" jsonschema:"path relative to the workspace root"`
	Range   place.Span `json:"range"`
	NewText string     `json:"newText"`
}

// String renders an edit on one line: file:line:col-line:col "new text".
func (e Edit) String() string {
	return e.Range.In(e.File) + " " + strconv.Quote(e.NewText)
}

// TextEdit is e as gopls takes it, in text, the file it applies to.
func (e Edit) TextEdit(text string) protocol.TextEdit {
	lines := strings.Split(text, "\n")
	line := func(p place.Pos) string {
		if p.Line < 1 || p.Line > len(lines) {
			return ""
		}
		return lines[p.Line-1]
	}
	return protocol.TextEdit{NewText: e.NewText, Range: protocol.Range{
		Start: e.Range.Start.LSP(line(e.Range.Start)),
		End:   e.Range.End.LSP(line(e.Range.End)),
	}}
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

// Text is the lean text of changes, or nothing when there are none: a
// line that says whether they were written, so that a model never takes a
// proposal for a done change, then the unified diff, which says
// everything the edits say.
func (c *Changes) Text(nothing string) string {
	if c.Edits == 0 {
		return nothing
	}
	state := "not applied"
	if c.Applied != nil && *c.Applied {
		state = "applied"
	}
	return fmt.Sprintf("%s: %s in %s\n%s", state, render.Plural(c.Edits, "edit"), render.Plural(c.Files, "file"), strings.TrimSuffix(c.Diff, "\n"))
}

// fit replaces a diff too large for an answer of limit bytes by a bounded
// summary: the files changed, as many as fit, and where to see the rest.
// The diff goes in the answer twice (text and structured content), each
// JSON-escaped; a quarter of the limit keeps the whole well inside it.
func (c *Changes) fit(limit int) {
	budget := limit / 4
	if jsonLen(c.Diff) <= budget {
		return
	}
	var files []string
	for _, line := range strings.Split(c.Diff, "\n") {
		if name, ok := strings.CutPrefix(line, "+++ b/"); ok {
			files = append(files, name)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "(the diff, %d bytes, is too large for the answer; run git diff to see it) files changed:\n", len(c.Diff))
	for i, f := range files {
		if sb.Len()+len(f)+64 > budget/2 {
			fmt.Fprintf(&sb, "... and %d more\n", len(files)-i)
			break
		}
		sb.WriteString(f + "\n")
	}
	c.Diff = sb.String()
}

// jsonLen is the length of s as a JSON string.
func jsonLen(s string) int {
	data, _ := json.Marshal(s)
	return len(data)
}

// Write is the input of the tools that propose edits that says whether to
// write them.
type Write struct {
	Apply bool `json:"apply,omitempty" jsonschema:"write them (needs --allow-write)"`
}

// Applies reports whether the call asked to write; the inputs that embed
// Write have it, so that what a call asks can be told from its input.
func (w Write) Applies() bool { return w.Apply }

// errWritesDisabled answers apply: true when goplsmcp may not write.
var errWritesDisabled = errors.New("apply: true needs goplsmcp started with --allow-write, and writes are disabled here; call without apply to get the edits and the diff, and apply them yourself")

// A Proposer turns gopls's workspace edits into the changes the edit
// tools answer with, and writes them, through the one write path, when
// writes are allowed and the call asks.
type Proposer struct {
	// Gate is the read gate, whose root confines every edit.
	Gate *place.Gate
	// Foreign reports whether uri is another session's snippet than the
	// caller's of ctx (see Source.Foreign).
	Foreign func(ctx context.Context, uri string) bool
	// Document is the buffer gopls holds for uri, and its version.
	Document func(uri string) (text string, version int32, ok bool)
	// Epoch is the disk epoch now, and Changed whether a file changed
	// on disk since one (see Source.Changed); both nil: files on disk
	// are judged by their times alone.
	Epoch   func() uint64
	Changed func(path string, since uint64) (changed, known bool)
	// Written tells gopls about the files written.
	Written func(written map[string]bool)
	// AllowWrite lets apply: true write.
	AllowWrite bool
	// Unsaved, if set, reports whether an editor holds uri with unsaved
	// changes: an apply that would write it is refused, since the
	// editor's text would overwrite the change or be lost to it.
	Unsaved func(uri string) bool
	// ResultBytes bounds the JSON of one tool result, which the diff of
	// changes written must fit in.
	ResultBytes int
	// Journal is the directory of the root's journals (see
	// Writer.Journal).
	Journal string
	// BeforeWrite, if set, runs after the edits to write are prepared
	// and before the files are checked; tests change a file there.
	BeforeWrite func()
}

// From turns gopls's workspace edit into an edit set (see From), with the
// text each file has in gopls's buffers or on disk; other sessions'
// snippets are left out.
func (p *Proposer) From(ctx context.Context, we *WorkspaceEdit, asked Asked) (*Set, error) {
	return From(we, asked, Source{
		Gate:     p.Gate,
		Foreign:  func(uri string) bool { return p.Foreign(ctx, uri) },
		Document: p.Document,
		Changed:  p.Changed,
	})
}

// Ask marks the moment gopls is asked for edits, right before the
// request: the files on disk they apply to must not change after it.
func (p *Proposer) Ask() Asked {
	a := Asked{at: time.Now()}
	if p.Epoch != nil {
		a.epoch = p.Epoch()
	}
	return a
}

// Changes renders the set for a result: how many edits in how many
// files, and the unified diff, with paths relative to the root.
func (p *Proposer) Changes(es *Set) (Changes, error) {
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

// List lists the edits of es by file and position, with paths relative
// to the root.
func (p *Proposer) List(es *Set) []Edit {
	var out []Edit
	for _, fe := range es.Files {
		name := p.Gate.Display(fe.Path)
		edits := slices.Clone(fe.Edits)
		slices.SortStableFunc(edits, func(x, y protocol.TextEdit) int { return place.ComparePos(x.Range.Start, y.Range.Start) })
		lines := strings.Split(fe.Before, "\n")
		line := func(p protocol.Position) string {
			if int(p.Line) < len(lines) {
				return lines[p.Line]
			}
			return ""
		}
		for _, e := range edits {
			out = append(out, Edit{File: name, NewText: e.NewText, Range: place.SpanFromLSP(line(e.Range.Start), line(e.Range.End), e.Range)})
		}
	}
	return out
}

// Check refuses apply: true when writes are not allowed, before the call
// does any work.
func (p *Proposer) Check(w Write) error { return CheckWrite(w, p.AllowWrite) }

// CheckWrite refuses apply: true when writes are not allowed: the one
// decision, for a proposer (Check) and for a session of a server whose
// sessions are allowed apart.
func CheckWrite(w Write, allowed bool) error {
	if w.Apply && !allowed {
		return errWritesDisabled
	}
	return nil
}

// Note ends the description of a tool that proposes edits.
func (p *Proposer) Note() string { return NoteFor(p.AllowWrite) }

// NoteFor is the Note of a proposer that may write, or not.
func NoteFor(allowed bool) string {
	if allowed {
		return " apply: true writes them, atomically, unless a file changed."
	}
	return " Nothing is written."
}

// Propose turns an edit set into the changes an edit tool answers with,
// written first when the call asked to apply them.
func (p *Proposer) Propose(w Write, es *Set) (Changes, error) {
	ch, err := p.Changes(es)
	if err != nil {
		return Changes{}, err
	}
	if err := p.applyIf(w, es, &ch); err != nil {
		return Changes{}, err
	}
	return ch, nil
}

// applyIf writes es when the call said apply: true, and then marks ch,
// its rendering, applied.
func (p *Proposer) applyIf(w Write, es *Set, ch *Changes) error {
	if !w.Apply || ch.Edits == 0 {
		return nil
	}
	if err := p.Check(w); err != nil {
		return err
	}
	if p.Unsaved != nil {
		for _, fe := range es.Files {
			if p.Unsaved(fe.URI) {
				return fmt.Errorf("not applied: %s has unsaved changes in the editor, which this write would overwrite or lose; save or revert it in the editor, then call again", p.Gate.Display(fe.Path))
			}
		}
	}
	// The answer is decided before anything is written: once written,
	// the call must say so, never fail for the size of its answer.
	ch.fit(p.ResultBytes)
	// The one write path: all or nothing, each file re-checked under its
	// lock right before it is replaced.
	if err := es.Write(&Writer{Gate: p.Gate, Journal: p.Journal, BeforeWrite: p.BeforeWrite}, p.Written); err != nil {
		return err
	}
	*ch.Applied = true
	return nil
}
