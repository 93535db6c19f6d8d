package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// A directClient is the baseline: gopls spoken to over plain LSP by the
// lspclient package, in the harness's own process, on its own gopls
// started from the same binary. It does only what an editor would: open a
// file once, then send the request.
type directClient struct {
	c    *lspclient.Client
	root string
}

func startDirect(ctx context.Context, gopls, root string, env []string) (*directClient, error) {
	c, err := lspclient.Start(ctx, lspclient.Options{Gopls: gopls, Root: root, Env: env, Timeout: 5 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("starting gopls for the direct client: %w", err)
	}
	if err := c.WaitLoaded(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("direct client: waiting for gopls to load %s: %w", root, err)
	}
	return &directClient{c: c, root: root}, nil
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
