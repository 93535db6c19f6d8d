package bridge

import (
	"github.com/goplsmcp/goplsmcp/bridge/internal/visible"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// addVisible shows every tool answer and error without the control
// characters a repository may hold (see internal/visible); resources and
// prompts are wrapped where they are added.
func (b *Bridge) addVisible(s *mcp.Server) error {
	s.AddToolMiddleware(visible.Tools)
	return nil
}
