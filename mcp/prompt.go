package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// A Prompt describes a prompt template to clients.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Icons       []Icon
}

// A PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// A PromptHandler renders a prompt from its arguments, which have been
// checked: every key is a declared argument and every required one is
// present and non-empty. An *Error chooses the code the client sees (use
// [InvalidParams] for a bad argument value); any other error becomes
// -32603.
type PromptHandler func(ctx context.Context, args map[string]string) (*PromptResult, error)

// A Completer proposes values for the argument named arg that start from
// prefix, given the values of the other arguments so far. It returns at
// most a bounded number; the server sends up to 100.
type Completer func(ctx context.Context, arg, prefix string, others map[string]string) ([]string, error)

// PromptResult is the result of prompts/get.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// A PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    string  `json:"role"` // "user" or "assistant"
	Content Content `json:"content"`
}

// UserText is a prompt message from the user holding text.
func UserText(text string) PromptMessage {
	return PromptMessage{Role: "user", Content: Content{Type: "text", Text: text}}
}

type serverPrompt struct {
	def      Prompt
	get      PromptHandler
	complete Completer
}

// AddPrompt registers a prompt. complete may be nil when no argument has
// completions.
func AddPrompt(s *Server, p Prompt, h PromptHandler, complete Completer) error {
	if p.Name == "" || h == nil {
		return fmt.Errorf("prompt %q: a name and a handler are required", p.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.promptIdx[p.Name]; dup {
		return fmt.Errorf("prompt %q registered twice", p.Name)
	}
	sp := &serverPrompt{def: p, get: h, complete: complete}
	s.prompts = append(s.prompts, sp)
	s.promptIdx[p.Name] = sp
	return nil
}

func (s *Server) prompt(name string) *serverPrompt {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.promptIdx[name]
}

type promptJSON struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
}

func listPrompts(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	ss.srv.mu.RLock()
	all := slices.Clone(ss.srv.prompts)
	ss.srv.mu.RUnlock()
	start, end, next, err := ss.page(params, "prompts", len(all))
	if err != nil {
		return nil, err
	}
	titles := ss.atLeast(ctx, version20250618)
	list := make([]promptJSON, 0, end-start)
	for _, p := range all[start:end] {
		j := promptJSON{Name: p.def.Name, Description: p.def.Description}
		for _, a := range p.def.Arguments {
			if !titles {
				a.Title = ""
			}
			j.Arguments = append(j.Arguments, a)
		}
		if titles {
			j.Title = p.def.Title
		}
		if ss.atLeast(ctx, version20251125) {
			j.Icons = p.def.Icons
		}
		list = append(list, j)
	}
	return &struct {
		Prompts    []promptJSON `json:"prompts"`
		NextCursor string       `json:"nextCursor,omitempty"`
	}{list, next}, nil
}

// stringArgs decodes prompt arguments: absent, null or an object whose
// values are all strings.
func stringArgs(raw json.RawMessage) (map[string]string, *Error) {
	args := map[string]string{}
	if isNull(raw) {
		return args, nil
	}
	var obj map[string]json.RawMessage
	if !isObject(raw) || json.Unmarshal(raw, &obj) != nil {
		return nil, InvalidParams("arguments must be an object")
	}
	for k, v := range obj {
		s, ok := stringValue(v)
		if !ok {
			return nil, InvalidParams(fmt.Sprintf("argument %s must be a string", shorten(k, 40)))
		}
		args[k] = s
	}
	return args, nil
}

func getPrompt(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	var p struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	name, ok := stringValue(p.Name)
	if !ok {
		return nil, InvalidParams("name must be a string")
	}
	sp := ss.srv.prompt(name)
	if sp == nil {
		return nil, InvalidParams("unknown prompt; prompts/list names them")
	}
	args, perr := stringArgs(p.Arguments)
	if perr != nil {
		return nil, perr
	}
	for k := range args {
		if !slices.ContainsFunc(sp.def.Arguments, func(a PromptArgument) bool { return a.Name == k }) {
			return nil, InvalidParams(fmt.Sprintf("prompt %s has no argument %s", sp.def.Name, shorten(k, 40)))
		}
	}
	for _, a := range sp.def.Arguments {
		if a.Required && args[a.Name] == "" {
			return nil, InvalidParams(fmt.Sprintf("missing required argument %s", a.Name))
		}
	}
	res, err := sp.get(ctx, args)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// maxCompletions is the most values completion/complete may return.
const maxCompletions = 100

func complete(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	var p struct {
		Ref struct {
			Type json.RawMessage `json:"type"`
			Name json.RawMessage `json:"name"`
		} `json:"ref"`
		Argument struct {
			Name  json.RawMessage `json:"name"`
			Value json.RawMessage `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"context"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil, InvalidParams("ref and argument must be objects")
	}
	refType, _ := stringValue(p.Ref.Type)
	switch refType {
	case "ref/prompt":
	case "ref/resource":
		return nil, InvalidParams("there are no resource templates to complete")
	default:
		return nil, InvalidParams(`ref.type must be "ref/prompt" or "ref/resource"`)
	}
	name, _ := stringValue(p.Ref.Name)
	sp := ss.srv.prompt(name)
	if sp == nil {
		return nil, InvalidParams("unknown prompt; prompts/list names them")
	}
	argName, ok := stringValue(p.Argument.Name)
	if !ok {
		return nil, InvalidParams("argument.name must be a string")
	}
	value, ok := stringValue(p.Argument.Value)
	if !ok {
		return nil, InvalidParams("argument.value must be a string")
	}
	if !slices.ContainsFunc(sp.def.Arguments, func(a PromptArgument) bool { return a.Name == argName }) {
		return nil, InvalidParams(fmt.Sprintf("prompt %s has no argument %s", sp.def.Name, shorten(argName, 40)))
	}
	others, perr := stringArgs(p.Context.Arguments)
	if perr != nil {
		return nil, InvalidParams("context.arguments must be an object of strings")
	}
	values := []string{}
	if sp.complete != nil {
		got, err := sp.complete(ctx, argName, value, others)
		if err != nil {
			return nil, err
		}
		values = append(values, got...)
	}
	type completion struct {
		Values  []string `json:"values"`
		Total   *int     `json:"total,omitempty"`
		HasMore bool     `json:"hasMore"`
	}
	c := completion{Values: values}
	if len(values) > maxCompletions {
		// A completer stops early, so the count it gave is no total.
		c.Values, c.HasMore = values[:maxCompletions], true
	} else {
		n := len(values)
		c.Total = &n
	}
	return map[string]any{"completion": c}, nil
}
