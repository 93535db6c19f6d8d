package mcp

import (
	"context"
	"slices"
)

// A SessionConfig is what one session of [Server.ServeLocal] is served
// with beyond the server's own options (see [LocalOptions.Configure]):
// the flags that govern a session alone, so that sessions started with
// different ones share one server.
type SessionConfig struct {
	// Tools, if not nil, are the only tools the session lists and may
	// call; the others are unknown to it.
	Tools []string
	// Instructions, if set, replace the server's in the session's
	// initialize and server/discover answers.
	Instructions string
	// Describe, if set, rewrites the description and annotations of
	// each tool the session lists (ann is nil for the versions that
	// have none; what Describe returns for it then is dropped).
	Describe func(name, description string, ann *ToolAnnotations) (string, *ToolAnnotations)
	// Value is what [SessionValue] returns in the session's calls.
	Value any
}

// SessionValue returns the [SessionConfig.Value] of the session the
// call of ctx belongs to, or nil.
func SessionValue(ctx context.Context) any {
	if ci := callFrom(ctx); ci != nil && ci.ss != nil && ci.ss.conf != nil {
		return ci.ss.conf.Value
	}
	return nil
}

// toolList is the server's tools that the session may see.
func (ss *session) toolList() []*serverTool {
	tools := ss.srv.toolList()
	if ss.conf == nil || ss.conf.Tools == nil {
		return tools
	}
	return slices.DeleteFunc(tools, func(t *serverTool) bool { return !slices.Contains(ss.conf.Tools, t.def.Name) })
}

// hasTool reports whether the session may call the tool name.
func (ss *session) hasTool(name string) bool {
	if ss.srv.tool(name) == nil {
		return false
	}
	return ss.conf == nil || ss.conf.Tools == nil || slices.Contains(ss.conf.Tools, name)
}

// instructions are the session's instructions.
func (ss *session) instructions() string {
	if ss.conf != nil && ss.conf.Instructions != "" {
		return ss.conf.Instructions
	}
	return ss.srv.opts.Instructions
}

// describe renders t for the session.
func (ss *session) describe(t *serverTool, version string) toolJSON {
	j := t.describe(version)
	if ss.conf != nil && ss.conf.Describe != nil {
		had := j.Annotations != nil
		j.Description, j.Annotations = ss.conf.Describe(j.Name, j.Description, j.Annotations)
		if !had {
			j.Annotations = nil
		}
	}
	return j
}
