package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// A directClient is the baseline: gopls spoken to over plain LSP by the
// lspclient package, in the harness's own process, on its own gopls
// started from the same binary. It does only what an editor would: open a
// file once, then send the request.
type directClient struct {
	c    *lspclient.Client
	root string
	// pub follows what gopls publishes.
	pub *published
}

// startDirect starts a direct client on root; settings, if not nil, are
// gopls settings on top of lspclient's.
func startDirect(ctx context.Context, gopls, root string, env []string, settings map[string]any) (*directClient, error) {
	pub := newPublished()
	c, err := lspclient.Start(ctx, lspclient.Options{Gopls: gopls, Root: root, Env: env, Settings: settings, Timeout: 5 * time.Minute, OnDiagnostics: pub.record})
	if err != nil {
		return nil, fmt.Errorf("starting gopls for the direct client: %w", err)
	}
	if err := c.WaitLoaded(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("direct client: waiting for gopls to load %s: %w", root, err)
	}
	return &directClient{c: c, root: root, pub: pub}, nil
}

// open makes gopls hold the file rel (relative to the root) as it is on
// disk, and returns its URI.
func (d *directClient) open(ctx context.Context, rel string) (string, error) {
	path := filepath.Join(d.root, filepath.FromSlash(rel))
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	uri := lspclient.FileURI(path)
	if _, err := d.c.Sync(ctx, uri, string(data)); err != nil {
		return "", err
	}
	return uri, nil
}

// request sends one LSP request and returns its raw result and duration.
func (d *directClient) request(ctx context.Context, method string, params any) (json.RawMessage, time.Duration, error) {
	start := time.Now()
	var res json.RawMessage
	err := d.c.Call(ctx, method, params, &res)
	return res, time.Since(start), err
}

func (d *directClient) close() { d.c.Close() }

// position builds textDocument/position params.
func position(uri string, p pos) map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     map[string]any{"line": p.line, "character": p.char},
	}
}

// references builds textDocument/references params.
func references(uri string, p pos, includeDecl bool) map[string]any {
	m := position(uri, p)
	m["context"] = map[string]any{"includeDeclaration": includeDecl}
	return m
}

// noDiagnosticsDelay makes gopls diagnose the whole workspace as soon as
// it learns of a change, instead of after its default second of quiet
// (diagnosticsDelay): what the direct client then waits for is gopls's
// own work, not a pause meant for a typing user.
var noDiagnosticsDelay = map[string]any{"diagnosticsDelay": "0s"}

// published keeps the diagnostics gopls last published for each file, as
// messages, and wakes whoever waits for a condition on them.
type published struct {
	mu    sync.Mutex
	byURI map[string][]string
	at    time.Time // when the last publication arrived
	wake  chan struct{}
}

func newPublished() *published {
	return &published{byURI: make(map[string][]string), wake: make(chan struct{}, 1)}
}

// record is lspclient's OnDiagnostics: it runs on the client's reading
// goroutine, so it only stores and signals.
func (p *published) record(uri string, diags []protocol.Diagnostic) {
	now := time.Now()
	msgs := make([]string, len(diags))
	for i, d := range diags {
		msgs[i] = d.Message
	}
	p.mu.Lock()
	p.byURI[uri], p.at = msgs, now
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// await waits until cond holds of the publications, and returns when the
// publication that made it hold arrived. cond gets the messages of a
// file's last publication by URI, and must not keep the map.
func (p *published) await(ctx context.Context, cond func(byURI map[string][]string) bool) (time.Time, error) {
	for {
		p.mu.Lock()
		ok, at := cond(p.byURI), p.at
		p.mu.Unlock()
		if ok {
			return at, nil
		}
		select {
		case <-p.wake:
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}
