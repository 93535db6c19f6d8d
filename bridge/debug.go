package bridge

import (
	"context"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// addDebugTrace makes a call with debug: true report the requests it
// made to gopls, with their durations and outcomes.
func (b *Bridge) addDebugTrace(s *mcp.Server) error {
	s.SetTracer(func(ctx context.Context) (context.Context, func() []mcp.TraceEntry) {
		ctx, trace := lspclient.WithTrace(ctx)
		return ctx, func() []mcp.TraceEntry {
			reqs := trace.Requests()
			out := make([]mcp.TraceEntry, len(reqs))
			for i, r := range reqs {
				out[i] = mcp.TraceEntry{Method: r.Method, Ms: mcp.Milliseconds(r.Duration), OK: r.Error == "", Error: mcp.Printable(r.Error)}
			}
			return out
		}
	})
	return nil
}
