package bridge

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// addProgressRelay makes every tool call that carries a progress token
// hear about gopls's work (loading packages, diagnosing) while it runs.
func (b *Bridge) addProgressRelay(s *mcp.Server) error {
	s.AddToolMiddleware(func(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
		if !mcp.ProgressRequested(ctx) && !b.client.Loaded() {
			// Without a progress token the client hears of the wait
			// through the log, at the level it set.
			s.Log(mcp.LevelNotice, "goplsmcp", tool+" waits for gopls to load the workspace")
		}
		return b.relayProgress(ctx, tool, next)
	})
	return nil
}

// relayProgress forwards gopls's $/progress reports to the call as
// notifications/progress until the tool returns. gopls's reports arrive on
// the LSP connection's reading goroutine, which must not wait for the MCP
// client, so they pass through a small buffer that drops on overflow.
func (b *Bridge) relayProgress(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
	if !mcp.ProgressRequested(ctx) {
		return next(ctx)
	}
	reports := make(chan string, 32)
	unsubscribe := b.client.SubscribeProgress(func(p lspclient.Progress) {
		select {
		case reports <- progressText(p):
		default:
		}
	})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	began := time.Now()
	wg.Go(func() {
		// A call that waits long is heard from between gopls's reports
		// too: clients that reset their timeout on progress keep waiting.
		quiet := time.NewTimer(progressHeartbeat)
		defer quiet.Stop()
		for {
			select {
			case msg := <-reports:
				mcp.ReportProgress(ctx, mcp.Printable(msg))
			case <-quiet.C:
				mcp.ReportProgress(ctx, fmt.Sprintf("%s: gopls is still working (%s)", tool, time.Since(began).Round(time.Second)))
			case <-stop:
				return
			}
			quiet.Reset(progressHeartbeat)
		}
	})
	if !b.client.Loaded() {
		mcp.ReportProgress(ctx, "gopls is loading the workspace")
	}
	res, err := next(ctx)
	unsubscribe()
	close(stop)
	wg.Wait()
	return res, err
}

// progressHeartbeat is the longest a call with a progress token goes
// without a progress notification: under the 10 s that clients which
// reset their timeout on progress are promised.
const progressHeartbeat = 8 * time.Second

// progressText renders one gopls report as a progress message: its
// title (a fixed name of gopls's work, such as "Packages" or "Diagnose
// files") and whether it is done, but not its message. gopls reports on
// all it does, for any session, and its messages may quote what it
// holds (the workspace load error can quote another session's unsaved
// go.mod); a call needs to hear that gopls works, not about what.
func progressText(p lspclient.Progress) string {
	parts := []string{"gopls"}
	if p.Title != "" {
		parts = append(parts, p.Title)
	}
	if p.Done {
		parts = append(parts, "done")
	}
	return strings.Join(parts, ": ")
}
