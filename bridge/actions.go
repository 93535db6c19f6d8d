package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
)

// codeAction is an LSP CodeAction as gopls sends it. raw is kept to send
// back for codeAction/resolve, which needs the action exactly as it came.
type codeAction struct {
	Title       string                `json:"title"`
	Kind        string                `json:"kind"`
	IsPreferred bool                  `json:"isPreferred"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	Edit        *workspaceEdit        `json:"edit"`
	Command     *struct {
		Command string `json:"command"`
	} `json:"command"`
	Data     json.RawMessage `json:"data"`
	Disabled *struct {
		Reason string `json:"reason"`
	} `json:"disabled"`

	raw json.RawMessage
}

// editable reports whether the action's effect is an edit goplsmcp can
// show: given, or computed on request. Actions that only run a gopls
// command (open a browser, add a test file, ...) are not.
func (a *codeAction) editable() bool {
	return a.Disabled == nil && (a.Edit.nonEmpty() || len(a.Data) > 0)
}

// codeActions asks gopls for the code actions on rng of src. diags are
// the diagnostics there, which gopls needs to offer their fixes; only
// filters by kind (all kinds when empty).
func (b *Bridge) codeActions(ctx context.Context, src *source, rng protocol.Range, diags []protocol.Diagnostic, only []string) ([]*codeAction, error) {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	actx := map[string]any{"diagnostics": diags, "triggerKind": 1} // 1: invoked
	if len(only) > 0 {
		actx["only"] = only
	}
	var raws []json.RawMessage
	err := b.client.Call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": src.uri},
		"range":        rng,
		"context":      actx,
	}, &raws)
	if err != nil {
		return nil, goplsError(err)
	}
	out := make([]*codeAction, 0, len(raws))
	for _, raw := range raws {
		a := &codeAction{raw: raw}
		if err := json.Unmarshal(raw, a); err != nil {
			return nil, fmt.Errorf("decoding gopls's code action: %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

// actionEdits returns the edits of an action, asking gopls to compute
// them (codeAction/resolve) when it sent them lazily.
func (b *Bridge) actionEdits(ctx context.Context, a *codeAction) (*editSet, error) {
	we := a.Edit
	if we == nil {
		if len(a.Data) == 0 {
			return nil, fmt.Errorf("%s runs a gopls command rather than proposing edits; goplsmcp does not run it", quote(a.Title))
		}
		var resolved codeAction
		if err := b.client.Call(ctx, "codeAction/resolve", a.raw, &resolved); err != nil {
			return nil, goplsError(err)
		}
		if resolved.Edit == nil {
			return nil, fmt.Errorf("gopls computed no edits for %s", quote(a.Title))
		}
		we = resolved.Edit
	}
	return b.editsFrom(we)
}

// Fix is a quick fix for a diagnostic: a title and its edits.
type Fix struct {
	Title string `json:"title"`
	Edits []Edit `json:"edits"`
}

// quickFixes returns the quick fixes gopls offers for each diagnostic of
// src, in the order of diags. gopls must have diagnosed src's current
// text (gopls.diagnose_files) so that it knows the analyzers' fixes.
func (b *Bridge) quickFixes(ctx context.Context, src *source, diags []protocol.Diagnostic) ([][]Fix, error) {
	out := make([][]Fix, len(diags))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		sem      = make(chan struct{}, 4)
	)
	for i, d := range diags {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			fixes, err := b.fixesFor(ctx, src, d)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			out[i] = fixes
		})
	}
	wg.Wait()
	return out, firstErr
}

func (b *Bridge) fixesFor(ctx context.Context, src *source, d protocol.Diagnostic) ([]Fix, error) {
	actions, err := b.codeActions(ctx, src, d.Range, []protocol.Diagnostic{d}, []string{"quickfix"})
	if err != nil {
		return nil, err
	}
	var fixes []Fix
	for _, a := range actions {
		if !a.editable() || !strings.HasPrefix(a.Kind, "quickfix") {
			continue
		}
		es, err := b.actionEdits(ctx, a)
		if err != nil {
			// One fix gopls cannot compute does not hide the others.
			b.log.Debug("computing a quick fix", "title", a.Title, "error", err)
			continue
		}
		ch, err := b.changes(es)
		if err != nil || len(ch.Edits) == 0 {
			continue
		}
		fixes = append(fixes, Fix{Title: a.Title, Edits: ch.Edits})
	}
	return fixes, nil
}

// wholeFile is the range of all of src.
func wholeFile(src *source) protocol.Range {
	line, char := src.end()
	return protocol.Range{End: protocol.Position{Line: uint32(line), Character: uint32(char)}}
}
