package visible

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// Tools is the tool middleware that shows every result's text and
// strings, and every error's message, with their control characters
// replaced. Added last, it is the outermost, so it sees the answer as it
// leaves.
func Tools(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
	out, err := next(ctx)
	if err != nil {
		return nil, Error(err)
	}
	return &shown{out: out}, nil
}

// shown is a tool's output as the mcp layer reads it: as text (Render),
// as structured content (MarshalJSON) and as resource links.
type shown struct {
	out any
}

// Render is the output's text, as mcp would make it (its own Render, else
// its indented JSON), with control characters replaced.
func (s *shown) Render() string {
	if r, ok := s.out.(mcp.Renderer); ok {
		return mcp.Printable(r.Render())
	}
	data, err := json.MarshalIndent(s.out, "", "  ")
	if err != nil {
		return mcp.Printable(fmt.Sprintf("%v", s.out))
	}
	return string(JSON(data))
}

// MarshalJSON is the output's JSON with every string decoded free of
// control characters: the structure, and so its validity against the
// output schema, is unchanged.
func (s *shown) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(s.out)
	if err != nil {
		return nil, err
	}
	return JSON(data), nil
}

// ResourceLinks are the output's links, if it has any, with their strings
// shown likewise.
func (s *shown) ResourceLinks() []mcp.ResourceLink {
	l, ok := s.out.(mcp.Linker)
	if !ok {
		return nil
	}
	links := l.ResourceLinks()
	for i, k := range links {
		links[i] = mcp.ResourceLink{URI: mcp.Printable(k.URI), Name: mcp.Printable(k.Name), Title: mcp.Printable(k.Title),
			Description: mcp.Printable(k.Description), MIMEType: mcp.Printable(k.MIMEType)}
	}
	return links
}

// Error is err with its message shown free of control characters. An
// *mcp.Error keeps its code; anything else keeps its chain (errors.As
// still finds an mcp.InternalError through it).
func Error(err error) error {
	var rpc *mcp.Error
	if errors.As(err, &rpc) {
		return &mcp.Error{Code: rpc.Code, Message: mcp.Printable(rpc.Message), Data: rpc.Data}
	}
	if msg := err.Error(); mcp.Printable(msg) == msg {
		return err
	}
	return &shownError{err}
}

type shownError struct{ err error }

func (e *shownError) Error() string { return mcp.Printable(e.err.Error()) }
func (e *shownError) Unwrap() error { return e.err }

// Resource wraps a resource handler so that its text is shown free of
// control characters. The text of a JSON resource keeps its structure:
// its strings are cleaned as decoded.
func Resource(h mcp.ResourceHandler) mcp.ResourceHandler {
	return func(ctx context.Context) (string, error) {
		text, err := h(ctx)
		if err != nil {
			return "", Error(err)
		}
		if json.Valid([]byte(text)) {
			return string(JSON([]byte(text))), nil
		}
		return mcp.Printable(text), nil
	}
}

// Prompt wraps a prompt handler so that its description and messages are
// shown free of control characters.
func Prompt(h mcp.PromptHandler) mcp.PromptHandler {
	return func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
		res, err := h(ctx, args)
		if err != nil {
			return nil, Error(err)
		}
		out := &mcp.PromptResult{Description: mcp.Printable(res.Description), Messages: make([]mcp.PromptMessage, len(res.Messages))}
		for i, m := range res.Messages {
			c := m.Content
			c.Text, c.URI, c.Name, c.Title, c.Description = mcp.Printable(c.Text), mcp.Printable(c.URI), mcp.Printable(c.Name), mcp.Printable(c.Title), mcp.Printable(c.Description)
			out.Messages[i] = mcp.PromptMessage{Role: m.Role, Content: c}
		}
		return out, nil
	}
}

// JSON returns data, valid JSON as encoding/json writes it, with every
// string (keys too) replaced by its decoded text with mcp.Printable
// applied, and everything else byte for byte. encoding/json escapes C0
// characters but writes DEL and C1 raw, and either way the string a
// client decodes would hold them.
func JSON(data []byte) []byte {
	var out []byte // nil until something changes
	last := 0
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		end := stringEnd(data, i)
		if end < 0 {
			break
		}
		lit := data[i : end+1]
		if fixed, ok := fixString(lit); ok {
			if out == nil {
				out = make([]byte, 0, len(data)+16)
			}
			out = append(out, data[last:i]...)
			out = append(out, fixed...)
			last = end + 1
		}
		i = end
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// stringEnd is the index of the quote that closes the string starting at
// data[start], or -1.
func stringEnd(data []byte, start int) int {
	for j := start + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// fixString returns the JSON string literal lit re-encoded with its
// control characters shown, and whether that changed it. Only a literal
// with an escape, DEL, a C1 byte pair or invalid UTF-8 can need it.
func fixString(lit []byte) ([]byte, bool) {
	if bytes.IndexByte(lit, '\\') < 0 && bytes.IndexByte(lit, 0x7f) < 0 && bytes.IndexByte(lit, 0xc2) < 0 && utf8.Valid(lit) {
		return nil, false
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return nil, false
	}
	p := mcp.Printable(s)
	if p == s {
		return nil, false
	}
	fixed, err := json.Marshal(p)
	if err != nil {
		return nil, false
	}
	return fixed, true
}
