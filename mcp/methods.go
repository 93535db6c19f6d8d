package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// A methodHandler answers one request method of a ready session.
type methodHandler func(ctx context.Context, ss *session, params json.RawMessage) (any, error)

func (ss *session) handlerFor(method string) methodHandler {
	switch method {
	case "tools/list":
		return listTools
	case "tools/call":
		return callTool
	}
	return nil
}

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

// initialize negotiates the version: a supported one is echoed, any other
// is answered with the newest. It may happen once per session.
func (ss *session) initialize(params json.RawMessage) (any, error) {
	var p struct {
		ProtocolVersion *string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.ProtocolVersion == nil || *p.ProtocolVersion == "" {
		return nil, newError(CodeInvalidParams, "Invalid params: protocolVersion must be a non-empty string")
	}
	version := latestVersion
	if slices.Contains(supportedVersions, *p.ProtocolVersion) {
		version = *p.ProtocolVersion
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != stateNew {
		return nil, newError(CodeInvalidRequest, "Invalid Request: the session is already initialized")
	}
	ss.state = stateInitializing
	ss.version = version

	info := implementation{Name: ss.srv.name, Version: ss.srv.version}
	if version >= "2025-06-18" {
		info.Title = ss.srv.opts.Title
	}
	return &initializeResult{
		ProtocolVersion: version,
		Capabilities: map[string]any{
			"tools": map[string]any{"listChanged": false},
		},
		ServerInfo:   info,
		Instructions: ss.srv.opts.Instructions,
	}, nil
}

func listTools(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, newError(CodeInvalidParams, "Invalid params: cursor must be a string")
		}
	}
	// All tools fit on one page, so no cursor was ever issued.
	if p.Cursor != nil {
		return nil, newError(CodeInvalidParams, "Invalid params: unknown cursor")
	}
	version := ss.negotiated()
	tools := ss.srv.toolList()
	list := make([]toolJSON, 0, len(tools))
	for _, t := range tools {
		list = append(list, t.describe(version))
	}
	return map[string]any{"tools": list}, nil
}

func callTool(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	var p struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Name == nil {
		return nil, newError(CodeInvalidParams, "Invalid params: name must be a string")
	}
	args := p.Arguments
	if isNull(args) {
		args = json.RawMessage("{}")
	} else if trimSpace(args)[0] != '{' {
		return nil, newError(CodeInvalidParams, "Invalid params: arguments must be an object")
	}
	structured := ss.atLeast("2025-06-18")
	t := ss.srv.tool(*p.Name)
	if t == nil {
		return errorResult("unknown tool", structured), nil
	}
	if err := t.validate(args); err != nil {
		return errorResult(err.Error(), structured), nil
	}
	out, err := t.run(ctx, args)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return errorResult(err.Error(), structured), nil
	}
	return ss.srv.resultFor(out, structured)
}

// resultFor wraps a tool's output as a result: its lean text, and its
// structured form where the version has structuredContent. A result over
// the size cap is replaced by an error saying how to narrow the call.
func (s *Server) resultFor(out any, structured bool) (any, error) {
	var text string
	if r, ok := out.(Renderer); ok {
		text = r.Render()
	} else {
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return nil, err
		}
		text = string(data)
	}
	res := &ToolResult{Content: []Content{{Type: "text", Text: text}}}
	if structured {
		res.StructuredContent = out
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if len(data) > s.opts.MaxResultBytes {
		msg := fmt.Sprintf("the answer is %d bytes, over the limit of %d; narrow the call: pass a smaller limit, one file, or a more specific query",
			len(data), s.opts.MaxResultBytes)
		return errorResult(msg, structured), nil
	}
	return json.RawMessage(data), nil
}
