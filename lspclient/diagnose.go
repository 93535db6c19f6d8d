package lspclient

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.lsp.dev/protocol"
)

// DiagnoseFile returns gopls's current diagnostics for one file (parse,
// type and analyzer), computed on demand for the content gopls holds now.
func (c *Client) DiagnoseFile(ctx context.Context, uri string) ([]protocol.Diagnostic, error) {
	var report struct {
		Kind  string                `json:"kind"`
		Items []protocol.Diagnostic `json:"items"`
	}
	err := c.Call(ctx, "textDocument/diagnostic", map[string]any{
		"textDocument": map[string]any{"uri": uri},
	}, &report)
	if err != nil {
		return nil, err
	}
	return report.Items, nil
}

// DiagnoseWorkspace has gopls diagnose the whole workspace views that
// contain the Go files goFiles (URIs), and returns when gopls has
// published the results, so that [Client.PublishedDiagnostics] is current.
// Waiting for the workspace to load is bounded by the load timeout, as
// for a request (see [Client.awaitLoad]).
func (c *Client) DiagnoseWorkspace(ctx context.Context, goFiles ...string) error {
	if err := c.awaitLoad(ctx); err != nil {
		return fmt.Errorf("waiting for the workspace to load: %w", err)
	}
	return c.DiagnoseFiles(ctx, goFiles)
}

// awaitLoad waits for gopls's workspace load, bounded by the load
// timeout. When the bound is reached gopls is checked (a gopls that hangs
// is restarted) and the error wraps ErrLoadTimeout.
func (c *Client) awaitLoad(ctx context.Context) error {
	waitCtx, cancel := context.WithTimeoutCause(ctx, c.opts.LoadTimeout, ErrLoadTimeout)
	err := c.WaitLoaded(waitCtx)
	timedOut := errors.Is(context.Cause(waitCtx), ErrLoadTimeout)
	cancel()
	if err != nil && ctx.Err() == nil && timedOut {
		c.suspectCurrent()
		return &LoadTimeoutError{Bound: c.opts.LoadTimeout}
	}
	return err
}

// A LoadTimeoutError says that gopls did not finish loading the
// workspace within Bound. It is ErrLoadTimeout.
type LoadTimeoutError struct{ Bound time.Duration }

func (e *LoadTimeoutError) Error() string {
	return fmt.Sprintf("%v: not within %s", ErrLoadTimeout, e.Bound)
}

// Is makes errors.Is(err, ErrLoadTimeout) hold.
func (e *LoadTimeoutError) Is(target error) bool { return target == ErrLoadTimeout }

// DiagnoseFiles has gopls diagnose in full (parse, type check and every
// analyzer) the workspace views holding the Go files uris, storing the
// results it offers quick fixes from and publishing them, and returns when
// it has published them. Nothing is asked when gopls has diagnosed those
// files' views in full since the last change it was told of (see
// [Client.Generation]): a full diagnosis of an unchanged workspace finds
// what the last one found.
func (c *Client) DiagnoseFiles(ctx context.Context, uris []string) error {
	// By every change, quiet ones too: what gopls stores for an open
	// file (its analyzers' diagnostics and fixes) is not what it stores
	// for a closed one.
	gen := c.stateGeneration()
	if c.diagnosedAt(uris, gen) {
		return nil
	}
	if err := c.diagnoseFiles(ctx, uris); err != nil {
		return err
	}
	if c.mods.Load() == gen {
		c.markDiagnosed(uris, gen)
	}
	return nil
}

// diagnosedAt reports whether every file of uris was diagnosed in full at
// generation gen.
func (c *Client) diagnosedAt(uris []string, gen uint64) bool {
	c.diagnosedMu.Lock()
	defer c.diagnosedMu.Unlock()
	for _, uri := range uris {
		if g, ok := c.diagnosed[uri]; !ok || g != gen {
			return false
		}
	}
	return len(uris) > 0
}

func (c *Client) markDiagnosed(uris []string, gen uint64) {
	c.diagnosedMu.Lock()
	defer c.diagnosedMu.Unlock()
	if c.diagnosed == nil || len(c.diagnosed) > maxDiagnosed {
		// Old generations are useless; start afresh rather than grow.
		c.diagnosed = make(map[string]uint64)
	}
	for _, uri := range uris {
		c.diagnosed[uri] = gen
	}
}

// maxDiagnosed bounds the files remembered as diagnosed.
const maxDiagnosed = 1024

func (c *Client) diagnoseFiles(ctx context.Context, uris []string) error {
	// gopls publishes the diagnostics, then ends the command's progress,
	// then answers. A forwarder to a shared daemon passes notifications
	// on in order but may pass the answer on before them; the end of the
	// progress, which follows the diagnostics, is the signal that they
	// are all here.
	token := fmt.Sprintf("goplsmcp-diagnose-%d", c.diagnoseSeq.Add(1))
	ended, forget := c.prog.expectEnd(strconv.Quote(token))
	defer forget()
	params := map[string]any{
		"command":       "gopls.diagnose_files",
		"arguments":     []any{map[string]any{"Files": uris}},
		"workDoneToken": token,
	}
	// A diagnosis of whole views: new packages are part of them.
	if err := c.traced(WorkspaceWide(ctx), "workspace/executeCommand gopls.diagnose_files", "workspace/executeCommand", params, nil); err != nil {
		return err
	}
	wait := time.NewTimer(c.opts.Timeout)
	defer wait.Stop()
	select {
	case <-ended:
	case <-ctx.Done():
		return ctx.Err()
	case <-wait.C:
		// Not fatal: the diagnostics published so far are the answer.
		c.log.Warn("gopls answered gopls.diagnose_files but did not end its progress", "timeout", c.opts.Timeout)
	}
	return nil
}

// WorkspaceDiagnostics is [Client.DiagnoseWorkspace] followed by
// [Client.PublishedDiagnostics], with the guarantee that the diagnostics
// come from the gopls that diagnosed: if gopls is replaced in between, the
// new one is asked once more.
func (c *Client) WorkspaceDiagnostics(ctx context.Context, goFiles ...string) (map[string][]protocol.Diagnostic, error) {
	for attempt := 0; ; attempt++ {
		gen := c.diags.generation()
		if err := c.DiagnoseWorkspace(ctx, goFiles...); err != nil {
			return nil, err
		}
		diags, now := c.diags.snapshot()
		if now == gen {
			return diags, nil
		}
		if attempt == 1 {
			return nil, fmt.Errorf("diagnosing the workspace: %w (restarted twice meanwhile)", ErrExited)
		}
	}
}
