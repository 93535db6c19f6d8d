package bridge

import (
	"context"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// Sessions that share one server (the shared daemon) share its gopls,
// and with it the editor's view of the files; what each may do is its
// own. A bridge built with Config.AllowWrite serves such sessions: each
// one's mcp.SessionConfig (SessionConfig) says whether it may write, and
// which tools it has. One gopls then holds every session's and the
// editor's unsaved text, so the refusal of an apply on a file an editor
// holds unsaved holds for every session, whatever flags it was started
// with.

// sessionRights is the mcp.SessionConfig.Value of a session of a shared
// server.
type sessionRights struct {
	allowWrite bool
}

// SessionConfig is what a session of a shared server is served with: it
// may write if allowWrite (and the bridge was built with
// Config.AllowWrite), and sees the tools named in tools, or the defaults
// if tools is nil; instructions, if set, replace the server's.
func (b *Bridge) SessionConfig(allowWrite bool, tools []string, instructions string) *mcp.SessionConfig {
	allowWrite = allowWrite && b.allowWrite
	if tools == nil {
		tools = DefaultTools()
	}
	conf := &mcp.SessionConfig{Tools: tools, Instructions: instructions, Value: sessionRights{allowWrite: allowWrite}}
	if !allowWrite && b.allowWrite {
		// Described as a bridge without writes describes them.
		conf.Describe = func(name, description string, ann *mcp.ToolAnnotations) (string, *mcp.ToolAnnotations) {
			if ann == nil || ann.ReadOnlyHint == nil || *ann.ReadOnlyHint {
				return description, ann
			}
			return strings.Replace(description, edit.NoteFor(true), edit.NoteFor(false), 1), readOnly()
		}
	}
	return conf
}

// addSessionRights refuses apply: true to a session that may not write,
// before the call does any work.
func (b *Bridge) addSessionRights(s *mcp.Server) error {
	s.AddToolMiddleware(func(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
		rights, ok := mcp.SessionValue(ctx).(sessionRights)
		if w, asks := mcp.ToolInput(ctx).(interface{ Applies() bool }); ok && asks {
			if err := edit.CheckWrite(edit.Write{Apply: w.Applies()}, rights.allowWrite); err != nil {
				return nil, err
			}
		}
		return next(ctx)
	})
	return nil
}
