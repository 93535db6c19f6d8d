package bridge

import (
	"context"
	"errors"
	"fmt"
	"github.com/goplsmcp/goplsmcp/bridge/internal/action"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/bridge/internal/target"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// CodeActionsInput is the input of go_code_actions.
type CodeActionsInput struct {
	At
	EndLine   *int   `json:"endLine,omitempty" jsonschema:"range end: 1-based line"`
	EndColumn *int   `json:"endColumn,omitempty" jsonschema:"range end: 1-based byte column, exclusive"`
	Kind      string `json:"kind,omitempty" jsonschema:"only this kind or below, e.g. quickfix, refactor.extract, source"`
	Index     *int   `json:"index,omitempty" jsonschema:"edits of the action at this index"`
	Title     string `json:"title,omitempty" jsonschema:"edits of the action with this title (or part)"`
	Write
}

// CodeActionsOutput is the result of go_code_actions.
type CodeActionsOutput struct {
	URI     string      `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer the call named, for later calls"`
	Note    string      `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	At      string      `json:"at,omitempty" jsonschema:"the place the actions apply to, as path:line:col or path:line:col-line:col (1-based, byte columns, as go vet prints them), when none was chosen"`
	Actions []string    `json:"actions,omitempty" jsonschema:"the actions available, when none was chosen, as index: title [kind], with (preferred) and fixes: the diagnostic it fixes"`
	Notes   Notes       `json:"notes,omitempty" jsonschema:"how to choose an action, and how many were left out because they run gopls commands (browse docs, add a test file, ...) rather than propose edits, as the text says it"`
	Chosen  *ChosenEdit `json:"chosen,omitempty" jsonschema:"the chosen action and its edits"`

	omitted int // actions left out: they run gopls commands
}

// ChosenEdit is a chosen code action and its edits.
type ChosenEdit struct {
	Action string `json:"action" jsonschema:"title [kind]"`
	Changes
}

// Render implements mcp.Renderer.
func (o *CodeActionsOutput) Render() string {
	var b strings.Builder
	if o.URI != "" {
		b.WriteString("buffer " + o.URI + "\n")
	}
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	if c := o.Chosen; c != nil {
		if c.Edits == 0 {
			fmt.Fprintf(&b, "%s: no edits", c.Action)
		} else {
			fmt.Fprintf(&b, "%s\n%s", c.Action, c.Text(""))
		}
		return b.String()
	}
	if len(o.Actions) == 0 {
		fmt.Fprintf(&b, "no code actions at %s%s", o.At, o.Notes.Parens())
	} else {
		fmt.Fprintf(&b, "%s at %s%s:", render.Plural(len(o.Actions), "code action"), o.At, o.Notes.Parens())
	}
	for _, a := range o.Actions {
		b.WriteString("\n" + a)
	}
	return b.String()
}

// codeActionsTool is go_code_actions's entry in the catalogue (see ToolSpec).
var codeActionsTool = ToolSpec{
	Name:        "go_code_actions",
	Title:       "Code actions",
	Description: "Code actions and quick fixes at a position or range (fill struct, extract function or variable, inline, add missing method, ...); pick one by index or title for its edits (unified diff).",
	Narrow:      "narrow the call: pass a smaller range, or kind to list fewer actions",
	Edits:       true,
	Instruction: "rename, gofmt, fix imports, quick fixes, refactorings (fill struct, extract, inline): a unified diff; apply: true writes it if the server allows.",
	Skill:       "Rename, gofmt, fix imports, quick fixes and refactorings (as a diff)",
	Doc:         "the code actions at a position or range (quick fixes, fill struct, extract, inline, ...); with `index` or `title`, one action's edits and diff",
	Summary:     "the code actions at a range, and one action's edits and diff",
	Framing:     []string{`^(\d+ code actions?|no code actions) at `},
	Good:        Sample{Args: `{"text": "package scratch\n\ntype P struct{ X, Y int }\n\nvar p = P{}\n", "line": 5, "column": 9, "title": "Fill P"}`, Want: "Fill P [refactor.rewrite.fillStruct]"},
	Bad:         Sample{Args: `{"text": "package scratch\n\ntype P struct{ X, Y int }\n\nvar p = P{}\n", "line": 5, "column": 9, "title": "No such action"}`, Want: `^no action here has a title like "No such action"`},
	Questions: []string{
		"extract this code into a function",
		"fill in the struct fields",
		"quick fix refactoring suggestions",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.codeActionsTool) },
}

func (b *Bridge) codeActionsTool(ctx context.Context, in *CodeActionsInput) (*CodeActionsOutput, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if err := b.edits.Check(in.Write); err != nil {
		return nil, err
	}
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	if t.Src.Kind == buffer.AsContext {
		return nil, fmt.Errorf("%s is outside the workspace root; code actions apply to code inside it", b.displayPath(t.Src.Path))
	}
	rng, err := actionRange(t, in)
	if err != nil {
		return nil, err
	}
	here, err := b.diagnosticsIn(ctx, t, rng)
	if err != nil {
		return nil, err
	}
	var only []string
	if in.Kind != "" {
		only = []string{in.Kind}
	}
	actions, err := b.actions.List(ctx, t.Src, rng, here, only)
	if err != nil {
		return nil, err
	}
	span := iplace.SpanFromLSP(t.Src.Line(int(rng.Start.Line)), t.Src.Line(int(rng.End.Line)), rng)
	at := span.Start.In(b.displayPath(t.Src.Path))
	if rng.End != rng.Start {
		at = span.In(b.displayPath(t.Src.Path))
	}
	out := &CodeActionsOutput{URI: t.Buffer, Note: t.Note, At: at}
	var usable []*action.Action
	for _, a := range actions {
		if !a.Editable() {
			out.omitted++
			continue
		}
		usable = append(usable, a)
	}
	if in.Index == nil && in.Title == "" {
		out.Actions = listActions(usable)
		if len(out.Actions) > 0 {
			out.Notes.Add("pass index or title for its edits")
		}
		if out.omitted > 0 {
			out.Notes.Add(fmt.Sprintf("%d more run gopls commands rather than propose edits, and are not offered", out.omitted))
		}
		return out, nil
	}
	return b.chosenAction(ctx, in, usable, out)
}

// check refuses arguments that contradict each other.
func (in *CodeActionsInput) check() error {
	switch {
	case (in.EndLine == nil) != (in.EndColumn == nil):
		return errors.New("endLine and endColumn go together; pass both (1-based, as go vet prints them), or neither")
	case in.Index != nil && in.Title != "":
		return errors.New("choose an action by index or by title, not both")
	case in.Index != nil && *in.Index < 0:
		return errors.New("index is 0-based and must not be negative")
	case in.Apply && in.Index == nil && in.Title == "":
		return errors.New("apply writes the edits of one action: choose it with index or title")
	}
	return nil
}

// actionRange is the range the call asks about: from the target to the
// end given, or over the symbol's name, or empty at the position.
func actionRange(t *target.Target, in *CodeActionsInput) (protocol.Range, error) {
	start := protocol.Position{Line: uint32(t.Line), Character: uint32(t.Character)}
	end := start
	switch {
	case in.EndLine != nil:
		pos := iplace.Pos{Line: *in.EndLine, Column: *in.EndColumn}
		if err := pos.Check(t.Src.Lines); err != nil {
			return protocol.Range{}, fmt.Errorf("end: %w", err)
		}
		end = pos.LSP(t.Src.Line(pos.Line - 1))
		if iplace.ComparePos(end, start) < 0 {
			return protocol.Range{}, fmt.Errorf("the range ends (%s) before it starts (%s)", pos, t.Pos())
		}
	case in.Symbol != "":
		// The symbol's name, as the range.
		name := symbol.IdentAt(t.Src.Line(t.Line), t.Character)
		end.Character += uint32(iplace.UTF16Len(name))
	}
	return protocol.Range{Start: start, End: end}, nil
}

// diagnosticsIn returns the diagnostics in rng, whose fixes gopls offers
// only when told of them, and only once it has stored them for this
// text, which it does for open files.
func (b *Bridge) diagnosticsIn(ctx context.Context, t *target.Target, rng protocol.Range) ([]protocol.Diagnostic, error) {
	t.Src.OpenInGopls()
	diags, err := b.client.DiagnoseFile(ctx, t.Src.URI)
	if err != nil {
		return nil, ask.Error(err)
	}
	var here []protocol.Diagnostic
	for _, d := range diags {
		if iplace.ComparePos(d.Range.Start, rng.End) <= 0 && iplace.ComparePos(rng.Start, d.Range.End) <= 0 {
			here = append(here, d)
		}
	}
	if len(here) > 0 {
		if err := b.client.ExecuteCommand(ctx, "gopls.diagnose_files", map[string]any{"Files": []string{t.Src.URI}}, nil); err != nil {
			return nil, ask.Error(err)
		}
	}
	return here, nil
}

// listActions is one line per usable action, by index.
func listActions(usable []*action.Action) []string {
	var lines []string
	for i, a := range usable {
		entry := fmt.Sprintf("%d: %s [%s]", i, a.Title, a.Kind)
		if a.IsPreferred {
			entry += " (preferred)"
		}
		if len(a.Diagnostics) > 0 {
			entry += " fixes: " + a.Diagnostics[0].Message
		}
		lines = append(lines, entry)
	}
	return lines
}

// chosenAction answers with the edits of the action the call chose,
// written when it asked to apply them.
func (b *Bridge) chosenAction(ctx context.Context, in *CodeActionsInput, usable []*action.Action, out *CodeActionsOutput) (*CodeActionsOutput, error) {
	a, err := choose(usable, in.Index, in.Title)
	if err != nil {
		return nil, err
	}
	es, err := b.actions.Edits(ctx, a)
	if err != nil {
		return nil, err
	}
	ch, err := b.edits.Propose(in.Write, es)
	if err != nil {
		return nil, err
	}
	out.At = ""
	out.Chosen = &ChosenEdit{Action: fmt.Sprintf("%s [%s]", a.Title, a.Kind), Changes: ch}
	return out, nil
}

// choose picks an action by index, or by title: exact, else a unique
// case-insensitive part of it.
func choose(actions []*action.Action, index *int, title string) (*action.Action, error) {
	if len(actions) == 0 {
		return nil, errors.New("there are no code actions here; call without index and title to see what is offered where")
	}
	if index != nil {
		if *index >= len(actions) {
			return nil, fmt.Errorf("index %d is out of range; the actions here are 0 to %d", *index, len(actions)-1)
		}
		return actions[*index], nil
	}
	for _, a := range actions {
		if a.Title == title {
			return a, nil
		}
	}
	var found []*action.Action
	for _, a := range actions {
		if strings.Contains(strings.ToLower(a.Title), strings.ToLower(title)) {
			found = append(found, a)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("no action here has a title like %s; call without title to list them", render.Quote(title))
	}
	var titles []string
	for _, a := range found {
		titles = append(titles, render.Quote(a.Title))
	}
	return nil, fmt.Errorf("title %s matches %d actions (%s); pass more of the title, or index", render.Quote(title), len(found), strings.Join(titles, ", "))
}
