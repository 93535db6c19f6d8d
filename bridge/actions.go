package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"go.lsp.dev/protocol"
)

// codeAction is an LSP CodeAction as gopls sends it. raw is kept to send
// back for codeAction/resolve, which needs the action exactly as it came.
type codeAction struct {
	Title       string                `json:"title"`
	Kind        string                `json:"kind"`
	IsPreferred bool                  `json:"isPreferred"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	Edit        *edit.WorkspaceEdit   `json:"edit"`
	Command     *struct {
		Command string `json:"command"`
	} `json:"command"`
	Data     json.RawMessage `json:"data"`
	Disabled *struct {
		Reason string `json:"reason"`
	} `json:"disabled"`

	raw json.RawMessage
	// asked is when gopls was asked for the action, which computed its
	// edits from the files as they were then.
	asked time.Time
}

// editable reports whether the action's effect is an edit goplsmcp can
// show: given, or computed on request. Actions that only run a gopls
// command (open a browser, add a test file, ...) are not.
func (a *codeAction) editable() bool {
	return a.Disabled == nil && (a.Edit.NonEmpty() || len(a.Data) > 0)
}

// codeActions asks gopls for the code actions on rng of src. diags are
// the diagnostics there, which gopls needs to offer their fixes; only
// filters by kind (all kinds when empty).
func (b *Bridge) codeActions(ctx context.Context, src *buffer.Source, rng protocol.Range, diags []protocol.Diagnostic, only []string) ([]*codeAction, error) {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	actx := map[string]any{"diagnostics": diags, "triggerKind": 1} // 1: invoked
	if len(only) > 0 {
		actx["only"] = only
	}
	var raws []json.RawMessage
	asked := time.Now()
	err := b.client.Call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": src.URI},
		"range":        rng,
		"context":      actx,
	}, &raws)
	if err != nil {
		return nil, goplsError(err)
	}
	out := make([]*codeAction, 0, len(raws))
	for _, raw := range raws {
		a := &codeAction{raw: raw, asked: asked}
		if err := json.Unmarshal(raw, a); err != nil {
			return nil, fmt.Errorf("decoding gopls's code action: %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

// actionEdits returns the edits of an action, asking gopls to compute
// them (codeAction/resolve) when it sent them lazily.
func (b *Bridge) actionEdits(ctx context.Context, a *codeAction) (*edit.Set, error) {
	we := a.Edit
	if we == nil {
		if len(a.Data) == 0 {
			return nil, fmt.Errorf("%s runs a gopls command rather than proposing edits; goplsmcp does not run it", render.Quote(a.Title))
		}
		var resolved codeAction
		if err := b.client.Call(ctx, "codeAction/resolve", a.raw, &resolved); err != nil {
			return nil, goplsError(err)
		}
		if resolved.Edit == nil {
			return nil, fmt.Errorf("gopls computed no edits for %s", render.Quote(a.Title))
		}
		we = resolved.Edit
	}
	return b.edits.From(ctx, we, a.asked)
}

// Fix is a quick fix for a diagnostic: a title and its edits.
type Fix struct {
	Title string `json:"title"`
	Edits []Edit `json:"edits"`
}

// quickFixes returns the quick fixes gopls offers for each diagnostic of
// src, in the order of diags. gopls must have diagnosed src's current
// text (gopls.diagnose_files) so that it knows the analyzers' fixes.
//
// gopls answers codeAction requests one at a time, and each costs it the
// import fixes of the whole file, so one request per diagnostic made a
// file with a few errors cost several times gopls's diagnosis. Instead one
// request covers the whole file with every diagnostic: gopls answers with
// the fixes it stored for them and the import fixes, each naming the
// diagnostics it fixes. Some fixes of type errors (create a missing
// variable, declare missing methods) name none, and work on the range the
// request gave: when the whole-file answer has such fixes, they are asked
// for again, one diagnostic at a time (the likeliest first), each on its
// own range, until every one of them is found.
func (b *Bridge) quickFixes(ctx context.Context, src *buffer.Source, diags []protocol.Diagnostic) ([][]Fix, error) {
	found := make([][]*codeAction, len(diags))
	actions, err := b.codeActions(ctx, src, wholeFile(src), diags, []string{"quickfix"})
	if err != nil {
		return nil, err
	}
	// Titles of the fixes that name no diagnostic, still to be placed.
	unplaced := map[string]int{}
	for _, a := range actions {
		if !a.isQuickFix() {
			continue
		}
		if len(a.Diagnostics) == 0 {
			unplaced[a.Title]++
			continue
		}
		for i, d := range diags {
			if a.fixes(d) {
				found[i] = append(found[i], a)
			}
		}
	}
	for _, i := range positionalCandidates(diags) {
		if len(unplaced) == 0 {
			break
		}
		actions, err := b.codeActions(ctx, src, diags[i].Range, diags[i:i+1], []string{"quickfix"})
		if err != nil {
			return nil, err
		}
		for _, a := range actions {
			if !a.isQuickFix() || len(a.Diagnostics) > 0 || unplaced[a.Title] == 0 {
				continue
			}
			found[i] = append(found[i], a)
			if unplaced[a.Title]--; unplaced[a.Title] == 0 {
				delete(unplaced, a.Title)
			}
		}
	}
	return b.resolveFixes(ctx, found)
}

// positionalCandidates orders the diagnostics that may have fixes that
// depend on their range: type errors, those whose message gopls is known
// to offer such fixes for first, then the others.
func positionalCandidates(diags []protocol.Diagnostic) []int {
	var likely, rest, other []int
	for i, d := range diags {
		switch {
		case d.Source != "compiler":
			other = append(other, i)
		case positionalFix(d.Message):
			likely = append(likely, i)
		default:
			rest = append(rest, i)
		}
	}
	return append(append(likely, rest...), other...)
}

// positionalFix reports whether gopls offers a fix that works on the
// error's range for a type error with this message.
func positionalFix(msg string) bool {
	for _, s := range []string{"missing method", "cannot convert", "not implement", "has no field or method", "undeclared name: ", "undefined: "} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// isQuickFix reports whether a is a quick fix goplsmcp can show as edits.
func (a *codeAction) isQuickFix() bool {
	return a.editable() && strings.HasPrefix(a.Kind, "quickfix")
}

// fixes reports whether a names d among the diagnostics it fixes.
func (a *codeAction) fixes(d protocol.Diagnostic) bool {
	for _, x := range a.Diagnostics {
		if x.Range == d.Range && x.Message == d.Message && x.Source == d.Source {
			return true
		}
	}
	return false
}

// resolveFixes turns each diagnostic's actions into fixes with edits,
// asking gopls for the edits of lazy ones, a few at a time; an action
// fixing several diagnostics is resolved once.
func (b *Bridge) resolveFixes(ctx context.Context, found [][]*codeAction) ([][]Fix, error) {
	type result struct {
		fix Fix
		ok  bool
	}
	results := map[*codeAction]*result{}
	var order []*codeAction
	for _, as := range found {
		for _, a := range as {
			if results[a] == nil {
				results[a] = &result{}
				order = append(order, a)
			}
		}
	}
	forEach(ctx, len(order), func(i int) {
		a := order[i]
		es, err := b.actionEdits(ctx, a)
		if err != nil {
			// One fix gopls cannot compute does not hide the others.
			b.log.Debug("computing a quick fix", "title", a.Title, "error", err)
			return
		}
		edits := b.edits.List(es)
		if len(edits) == 0 {
			return
		}
		*results[a] = result{Fix{Title: a.Title, Edits: edits}, true}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]Fix, len(found))
	for i, as := range found {
		for _, a := range as {
			if r := results[a]; r.ok {
				out[i] = append(out[i], r.fix)
			}
		}
	}
	return out, nil
}

// wholeFile is the range of all of src.
func wholeFile(src *buffer.Source) protocol.Range {
	line, char := src.End()
	return protocol.Range{End: protocol.Position{Line: uint32(line), Character: uint32(char)}}
}
