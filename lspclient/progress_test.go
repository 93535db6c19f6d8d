package lspclient

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestSubscribeProgress checks that a subscriber sees gopls's work-done
// progress for a command that reports it (gopls.diagnose_files), begin to
// end, and nothing once unsubscribed.
func TestSubscribeProgress(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []Progress
	unsubscribe := c.SubscribeProgress(func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, p)
	})
	file := FileURI(filepath.Join(root, "main.go"))
	if err := c.DiagnoseWorkspace(ctx, file); err != nil {
		t.Fatal(err)
	}
	// gopls ends its progress before it answers the command.
	mu.Lock()
	reports := append([]Progress(nil), got...)
	mu.Unlock()
	// Other work (gopls.packages, for one) may report too.
	begun, ended := false, false
	for _, r := range reports {
		if r.Title == "Diagnose files" {
			begun = begun || !r.Done
			ended = ended || (begun && r.Done)
		}
	}
	if !begun || !ended {
		t.Fatalf("reports during gopls.diagnose_files: %+v; want a begin titled \"Diagnose files\", then its end", reports)
	}
	unsubscribe()
	if err := c.DiagnoseWorkspace(ctx, file); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(reports) {
		t.Errorf("%d reports after unsubscribing: %+v", len(got)-len(reports), got[len(reports):])
	}
}
