package bridge

import (
	"context"
	"fmt"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// addMissingHints makes every tool error that a missing module causes say
// so, and how to get it: gopls's own words ("no package data for import",
// "failed to resolve import") send an agent to fix correct code (see
// modules.Modules.HintForFailure).
func (b *Bridge) addMissingHints(s *mcp.Server) error {
	s.AddToolMiddleware(func(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
		out, err := next(ctx)
		if err == nil || ctx.Err() != nil {
			return out, err
		}
		if hint := b.mods.HintForFailure(err.Error()); hint != "" {
			return nil, fmt.Errorf("%w; %s", err, hint)
		}
		return out, err
	})
	return nil
}
