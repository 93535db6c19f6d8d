package lspclient

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestZZProbeLoads(t *testing.T) {
	ctx := context.Background()
	rootA, rootB := exampleRoot(t), exampleRoot(t)
	a := startWith(t, Options{Root: rootA})
	b := startWith(t, Options{Root: rootB})
	a.WaitLoaded(ctx)
	b.WaitLoaded(ctx)
	waitWatching(t, a, rootA)
	waitWatching(t, b, rootB)
	uri := FileURI(filepath.Join(rootA, "main.go"))
	hover := func() time.Duration {
		s := time.Now()
		hoverText(t, ctx, a, uri, 12, 22)
		return time.Since(s)
	}
	measure := func(name string, c *Client, root string, round int) {
		for i := range 32 {
			writeFile(t, filepath.Join(root, fmt.Sprintf("fresh%d", round), fmt.Sprintf("p%d", i), "p.go"), fmt.Sprintf("package p%d\n\nfunc F%d() {}\n", i, i))
		}
		c.Refresh()
		done := make(chan struct{})
		go func() { c.Call(WorkspaceWide(ctx), "workspace/symbol", map[string]any{"query": "F16"}, nil); close(done) }()
		var d []time.Duration
		s := time.Now()
	loop:
		for {
			d = append(d, hover())
			select {
			case <-done:
				break loop
			default:
			}
		}
		slices.Sort(d)
		t.Logf("%s: loads %v, n %d, hover p50 %v max %v", name, time.Since(s), len(d), d[len(d)/2], d[len(d)-1])
		os.RemoveAll(filepath.Join(root, fmt.Sprintf("fresh%d", round)))
		c.Refresh()
	}
	var rest []time.Duration
	for range 50 {
		rest = append(rest, hover())
	}
	slices.Sort(rest)
	t.Logf("at rest: p50 %v", rest[len(rest)/2])
	for r := range 3 {
		measure("own gopls loads", a, rootA, r)
		time.Sleep(2 * time.Second)
		measure("other gopls loads", b, rootB, r)
		time.Sleep(2 * time.Second)
	}
}
