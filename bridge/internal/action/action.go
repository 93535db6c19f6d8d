package action

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// An Action is an LSP CodeAction as gopls sends it. raw is kept to send
// back for codeAction/resolve, which needs the action exactly as it came.
type Action struct {
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
	asked edit.Asked
}

// Editable reports whether the action's effect is an edit goplsmcp can
// show: given, or computed on request. Actions that only run a gopls
// command (open a browser, add a test file, ...) are not.
func (a *Action) Editable() bool {
	return a.Disabled == nil && (a.Edit.NonEmpty() || len(a.Data) > 0)
}

// isQuickFix reports whether a is a quick fix goplsmcp can show as edits.
func (a *Action) isQuickFix() bool {
	return a.Editable() && strings.HasPrefix(a.Kind, "quickfix")
}

// fixes reports whether a names d among the diagnostics it fixes.
func (a *Action) fixes(d protocol.Diagnostic) bool {
	for _, x := range a.Diagnostics {
		if x.Range == d.Range && x.Message == d.Message && x.Source == d.Source {
			return true
		}
	}
	return false
}

// An Asker asks gopls for code actions and their edits.
type Asker struct {
	// Client is the gopls asked.
	Client *lspclient.Client
	// Proposer turns the actions' workspace edits into edit sets.
	Proposer *edit.Proposer
	// Log receives the quick fixes gopls could not compute.
	Log *slog.Logger
}

// List asks gopls for the code actions on rng of src. diags are the
// diagnostics there, which gopls needs to offer their fixes; only filters
// by kind (all kinds when empty).
func (k *Asker) List(ctx context.Context, src *buffer.Source, rng protocol.Range, diags []protocol.Diagnostic, only []string) ([]*Action, error) {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	actx := map[string]any{"diagnostics": diags, "triggerKind": 1} // 1: invoked
	if len(only) > 0 {
		actx["only"] = only
	}
	var raws []json.RawMessage
	asked := k.Proposer.Ask()
	err := k.Client.Call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": src.URI},
		"range":        rng,
		"context":      actx,
	}, &raws)
	if err != nil {
		return nil, ask.Error(err)
	}
	out := make([]*Action, 0, len(raws))
	for _, raw := range raws {
		a := &Action{raw: raw, asked: asked}
		if err := json.Unmarshal(raw, a); err != nil {
			return nil, fmt.Errorf("decoding gopls's code action: %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

// Edits returns the edits of an action, asking gopls to compute them
// (codeAction/resolve) when it sent them lazily.
func (k *Asker) Edits(ctx context.Context, a *Action) (*edit.Set, error) {
	we := a.Edit
	if we == nil {
		if len(a.Data) == 0 {
			return nil, fmt.Errorf("%s runs a gopls command rather than proposing edits; goplsmcp does not run it", render.Quote(a.Title))
		}
		var resolved Action
		if err := k.Client.Call(ctx, "codeAction/resolve", a.raw, &resolved); err != nil {
			return nil, ask.Error(err)
		}
		if resolved.Edit == nil {
			return nil, fmt.Errorf("gopls computed no edits for %s", render.Quote(a.Title))
		}
		we = resolved.Edit
	}
	return k.Proposer.From(ctx, we, a.asked)
}

// WholeFile is the range of all of src.
func WholeFile(src *buffer.Source) protocol.Range {
	line, char := src.End()
	return protocol.Range{End: protocol.Position{Line: uint32(line), Character: uint32(char)}}
}
