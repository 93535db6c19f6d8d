package action

import (
	"context"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"go.lsp.dev/protocol"
)

// Fix is a quick fix for a diagnostic: a title and its edits.
type Fix struct {
	Title string      `json:"title"`
	Edits []edit.Edit `json:"edits"`
}

// QuickFixes returns the quick fixes gopls offers for each diagnostic of
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
//
// A file with one diagnostic is asked once, on the diagnostic's range:
// that answer holds both kinds, and a diagnosis after an edit (one new
// error, as often as not) waits for one request less.
func (k *Asker) QuickFixes(ctx context.Context, src *buffer.Source, diags []protocol.Diagnostic) ([][]Fix, error) {
	found := make([][]*Action, len(diags))
	if len(diags) == 1 {
		actions, err := k.List(ctx, src, diags[0].Range, diags, []string{"quickfix"})
		if err != nil {
			return nil, err
		}
		for _, a := range actions {
			if a.isQuickFix() && (len(a.Diagnostics) == 0 || a.fixes(diags[0])) {
				found[0] = append(found[0], a)
			}
		}
		return k.resolveFixes(ctx, found)
	}
	actions, err := k.List(ctx, src, WholeFile(src), diags, []string{"quickfix"})
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
		actions, err := k.List(ctx, src, diags[i].Range, diags[i:i+1], []string{"quickfix"})
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
	return k.resolveFixes(ctx, found)
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

// resolveFixes turns each diagnostic's actions into fixes with edits,
// asking gopls for the edits of lazy ones, a few at a time; an action
// fixing several diagnostics is resolved once.
func (k *Asker) resolveFixes(ctx context.Context, found [][]*Action) ([][]Fix, error) {
	type result struct {
		fix Fix
		ok  bool
	}
	results := map[*Action]*result{}
	var order []*Action
	for _, as := range found {
		for _, a := range as {
			if results[a] == nil {
				results[a] = &result{}
				order = append(order, a)
			}
		}
	}
	ask.ForEach(ctx, len(order), func(i int) {
		a := order[i]
		es, err := k.Edits(ctx, a)
		if err != nil {
			// One fix gopls cannot compute does not hide the others.
			k.Log.Debug("computing a quick fix", "title", a.Title, "error", err)
			return
		}
		edits := k.Proposer.List(es)
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
