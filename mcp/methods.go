package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A methodHandler answers one request method of a ready session.
type methodHandler func(ctx context.Context, ss *session, params json.RawMessage) (any, error)

func handlerFor(method string) methodHandler {
	switch method {
	case "tools/list":
		return listTools
	case "tools/call":
		return callTool
	case "resources/list":
		return listResources
	case "resources/templates/list":
		return listResourceTemplates
	case "resources/read":
		return readResource
	case "prompts/list":
		return listPrompts
	case "prompts/get":
		return getPrompt
	case "completion/complete":
		return complete
	case "logging/setLevel":
		return setLevel
	}
	return nil
}

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
	Icons   []Icon `json:"icons,omitempty"`
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
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	asked, ok := stringValue(p.ProtocolVersion)
	if !ok || asked == "" {
		return nil, InvalidParams("protocolVersion must be a non-empty string")
	}
	version := latestVersion
	if slices.Contains(supportedVersions, asked) {
		version = asked
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != stateNew {
		return nil, newError(CodeInvalidRequest, "Invalid Request: the session is already initialized")
	}
	ss.state = stateInitializing
	ss.version = version

	info := implementation{Name: ss.srv.name, Version: ss.srv.version}
	if version >= version20250618 {
		info.Title = ss.srv.opts.Title
	}
	if version >= version20251125 {
		info.Icons = ss.srv.opts.Icons
	}
	caps := map[string]any{
		"tools":     map[string]any{"listChanged": false},
		"resources": map[string]any{"listChanged": false, "subscribe": false},
		"prompts":   map[string]any{"listChanged": false},
		"logging":   map[string]any{},
	}
	if version >= version20250326 {
		caps["completions"] = map[string]any{}
	}
	return &initializeResult{
		ProtocolVersion: version,
		Capabilities:    caps,
		ServerInfo:      info,
		Instructions:    ss.instructions(),
	}, nil
}

func listTools(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	tools := ss.toolList()
	start, end, next, err := ss.page(params, "tools", len(tools))
	if err != nil {
		return nil, err
	}
	version := ss.versionFor(ctx)
	var handles *handleTable
	if ci := callFrom(ctx); ci != nil && ci.modern {
		handles = ss.srv.handleTable()
	}
	list := make([]toolJSON, 0, end-start)
	for _, t := range tools[start:end] {
		j := ss.describe(t, version)
		if handles != nil {
			j.InputSchema, j.OutputSchema = t.withHandle(handles.opts.Argument)
		}
		list = append(list, j)
	}
	return &struct {
		Tools      []toolJSON `json:"tools"`
		NextCursor string     `json:"nextCursor,omitempty"`
	}{list, next}, nil
}

func callTool(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	ss.srv.toolCalls.Add(1)
	var p struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	name, ok := stringValue(p.Name)
	if !ok {
		return nil, InvalidParams("name must be a string")
	}
	args := p.Arguments
	if isNull(args) {
		args = json.RawMessage("{}")
	} else if !isObject(args) {
		return nil, InvalidParams("arguments must be an object")
	}
	if !ss.hasTool(name) {
		if ci := callFrom(ctx); ci != nil && ci.modern {
			// The modern revisions make an unknown tool a protocol error.
			return nil, InvalidParams("unknown tool " + shorten(name, 80) + "; tools/list names them")
		}
		return errorResult("unknown tool", nil), nil
	}
	if ci := callFrom(ctx); ci != nil && ci.modern {
		if t := ss.srv.handleTable(); t != nil {
			return ss.callModernTool(ctx, ci, t, name, args)
		}
	}
	return ss.srv.call(ctx, name, args, ss.atLeast(ctx, version20250618))
}

// call runs one tools/call: it finds the tool, validates args, runs the
// tool inside the middleware and shapes its result; with debug: true, it
// traces the call. structured says whether the client's version has
// structuredContent.
func (s *Server) call(ctx context.Context, name string, args json.RawMessage, structured bool) (any, error) {
	t := s.tool(name)
	if t == nil {
		return errorResult("unknown tool", nil), nil
	}
	if err := t.validate(args); err != nil {
		return errorResult(err.Error(), nil), nil
	}
	debug, args, err := takeDebug(args)
	if err != nil {
		return errorResult(err.Error(), nil), nil
	}
	in, err := t.decode(args)
	if err != nil {
		return errorResult(err.Error(), nil), nil
	}
	var finish func() []TraceEntry
	if tracer := s.currentTracer(); debug && tracer != nil {
		ctx, finish = tracer(ctx)
	}
	ctx = context.WithValue(ctx, inputKey{}, in)
	ctx, notes := withNotes(ctx)
	began := time.Now()
	out, err := s.runTool(ctx, t, in)
	var dbg *DebugInfo
	if debug {
		dbg = &DebugInfo{Ms: Milliseconds(time.Since(began)), Requests: []TraceEntry{}}
		if finish != nil {
			dbg.Requests = append(dbg.Requests, finish()...)
		}
	}
	if err != nil {
		var ie *internalError
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.As(err, &ie):
			// Answered -32603 and logged by the session.
			return nil, ie
		}
		return errorResult(err.Error(), dbg), nil
	}
	return s.resultFor(out, structured, dbg, t.def.Narrow, notes.lines())
}

// CallTool runs one tool outside any session, as tools/call does for a
// client of the newest protocol version, and returns what that client
// would receive. An unknown tool, invalid arguments and the tool's own
// failure are results with IsError set; the error is for args that are
// not a JSON object, the end of ctx, and a tool that panicked or failed
// with an [InternalError] (logged).
func (s *Server) CallTool(ctx context.Context, name string, args json.RawMessage) (_ *ToolResultJSON, err error) {
	if isNull(args) {
		args = json.RawMessage("{}")
	} else if !isObject(args) {
		return nil, InvalidParams("arguments must be an object")
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("tool panicked", "tool", shorten(name, 80), "type", fmt.Sprintf("%T", r))
			err = newError(CodeInternalError, "Internal error")
		}
	}()
	res, err := s.call(ctx, name, args, true)
	var ie *internalError
	if errors.As(err, &ie) {
		s.logInternal("tool failed", ie)
		return nil, newError(CodeInternalError, "Internal error")
	}
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var out ToolResultJSON
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// defaultNarrow is the advice for a result over the cap when the tool
// gives none of its own.
const defaultNarrow = "narrow the call: pass a smaller limit, one file, or a more specific query"

// resultFor wraps a tool's output as a result: its lean text, and, where
// the version has them, its structured form and its resource links. A
// result over the size cap is replaced by an error saying how to narrow
// the call: narrow, or generic advice.
func (s *Server) resultFor(out any, structured bool, dbg *DebugInfo, narrow string, notes []string) (any, error) {
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
	if len(notes) > 0 {
		text += "\n" + strings.Join(notes, "\n")
	}
	if dbg != nil {
		text += "\n" + dbg.render()
	}
	res := &ToolResult{Content: []Content{{Type: "text", Text: text}}}
	if structured {
		res.StructuredContent = out
		if dbg != nil || len(notes) > 0 {
			data, err := json.Marshal(out)
			if err != nil {
				return nil, err
			}
			if len(notes) > 0 {
				if data, err = notesInto(data, notes); err != nil {
					return nil, err
				}
			}
			if dbg != nil {
				if data, err = withMember(data, debugArg, dbg); err != nil {
					return nil, err
				}
			}
			res.StructuredContent = json.RawMessage(data)
		}
		if l, ok := out.(Linker); ok {
			for _, link := range l.ResourceLinks() {
				res.Content = append(res.Content, Content{
					Type: "resource_link", URI: link.URI, Name: link.Name, Title: link.Title,
					Description: link.Description, MIMEType: link.MIMEType,
				})
			}
		}
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if len(data) > s.opts.MaxResultBytes {
		if narrow == "" {
			narrow = defaultNarrow
		}
		msg := fmt.Sprintf("the answer is %d bytes, over the limit of %d; %s", len(data), s.opts.MaxResultBytes, narrow)
		return errorResult(msg, dbg), nil
	}
	return json.RawMessage(data), nil
}
