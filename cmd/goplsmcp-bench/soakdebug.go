package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// soakDebug fetches, from the debug server of our gopls in a soak
// (-soak-pprof), what tells why it grows: the live heap after a
// collection, and the pages that count caches, sessions, views and open
// files. gopls mcp has no debug server (v0.24 refuses -debug under mcp).
type soakDebug struct {
	dir  string
	ours string // host:port of our gopls's -debug server
}

func newSoakDebug(dir string) (*soakDebug, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// A port free now; gopls binds it a moment later. A clash would show
	// as a missing profile, not a wrong one.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("finding a debug port: %w", err)
	}
	addr := l.Addr().String()
	l.Close()
	return &soakDebug{dir: dir, ours: addr}, nil
}

// debugLink matches the pages gopls's index links to.
var debugLink = regexp.MustCompile(`href="(/(?:cache|session|view|client|server)/[^"]*)"`)

// snapshot writes sample n of our side: heap-N.pb.gz and the pages.
func (d *soakDebug) snapshot(ctx context.Context, n int, logf func(string, ...any)) {
	for side, addr := range map[string]string{"ours": d.ours} {
		base := "http://" + addr
		// /gc collects, so that the profile is the live heap.
		if _, err := d.get(ctx, base+"/gc"); err != nil {
			logf("soak debug %s: %v", side, err)
			continue
		}
		heap, err := d.get(ctx, base+"/debug/pprof/heap")
		if err == nil {
			err = os.WriteFile(filepath.Join(d.dir, fmt.Sprintf("%s-heap-%02d.pb.gz", side, n)), heap, 0o644)
		}
		if err != nil {
			logf("soak debug %s heap: %v", side, err)
		}
		index, err := d.get(ctx, base+"/")
		if err != nil {
			continue
		}
		var pages strings.Builder
		fmt.Fprintf(&pages, "=== /\n%s\n", index)
		seen := map[string]bool{}
		for _, m := range debugLink.FindAllSubmatch(index, -1) {
			path := string(m[1])
			if seen[path] {
				continue
			}
			seen[path] = true
			if page, err := d.get(ctx, base+path); err == nil {
				fmt.Fprintf(&pages, "=== %s\n%s\n", path, page)
			}
		}
		for _, path := range []string{"/memory", "/info"} {
			if page, err := d.get(ctx, base+path); err == nil {
				fmt.Fprintf(&pages, "=== %s\n%s\n", path, page)
			}
		}
		os.WriteFile(filepath.Join(d.dir, fmt.Sprintf("%s-pages-%02d.html", side, n)), []byte(pages.String()), 0o644)
	}
}

func (d *soakDebug) get(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
