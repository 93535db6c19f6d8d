package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// debugArg is the argument every tool accepts: with it true, the result
// also carries the backend requests the call made.
const debugArg = "debug"

// A TraceEntry is one request a tool call made to the server's backend
// (for goplsmcp, gopls). It names the request, never its content.
type TraceEntry struct {
	Method string  `json:"method"`
	Ms     float64 `json:"ms"`
	OK     bool    `json:"ok"`
	Error  string  `json:"error,omitempty"`
}

// DebugInfo is what a call with debug: true adds to its result, under
// "debug" in structuredContent and at the end of its text.
type DebugInfo struct {
	// Ms is how long the whole call took.
	Ms float64 `json:"ms"`
	// Requests are the backend requests, in the order they ended.
	Requests []TraceEntry `json:"requests"`
}

// A Tracer records the backend requests of one tool call. It returns the
// context to run the call in, and a function that returns what was
// recorded once the call has returned.
type Tracer func(ctx context.Context) (context.Context, func() []TraceEntry)

// SetTracer sets the tracer of calls made with debug: true. Without one,
// such calls report their duration and no requests.
func (s *Server) SetTracer(t Tracer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tracer = t
}

func (s *Server) currentTracer() Tracer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tracer
}

// Milliseconds returns d in milliseconds, to a tenth.
func Milliseconds(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Millisecond)*10) / 10
}

// addDebugSchemas adds the debug argument to a tool's input schema. The
// output schema allows additional members, so the debug member a result
// may carry needs no declaration; the output type must not have one of
// its own.
func addDebugSchemas(in, out *jsonschema.Schema) error {
	if _, taken := in.Properties[debugArg]; taken {
		return fmt.Errorf("the input must not have a %q field: every tool gets one", debugArg)
	}
	if _, taken := out.Properties[debugArg]; taken {
		return fmt.Errorf("the output must not have a %q field: every tool gets one", debugArg)
	}
	// Every tool's schema carries it, so it is kept short.
	in.Properties[debugArg] = &jsonschema.Schema{Type: "boolean"}
	return nil
}

// takeDebug removes the debug argument from args, a JSON object that
// validated against the input schema, and reports whether it was true.
func takeDebug(args json.RawMessage) (bool, json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return false, nil, errors.New("the arguments are not valid JSON")
	}
	raw, ok := m[debugArg]
	if !ok {
		return false, args, nil
	}
	delete(m, debugArg)
	rest, err := json.Marshal(m)
	if err != nil {
		return false, nil, err
	}
	// Decoded, not compared as bytes: the schema has checked it is a
	// boolean.
	var on bool
	if err := json.Unmarshal(raw, &on); err != nil {
		return false, nil, errors.New("invalid arguments: debug must be a boolean")
	}
	return on, rest, nil
}

// render is the lean text of the debug information, a few lines added to
// the end of a result's text.
func (d *DebugInfo) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "debug: %g ms, %d requests", d.Ms, len(d.Requests))
	for _, r := range d.Requests {
		fmt.Fprintf(&b, "\n  %s %g ms", r.Method, r.Ms)
		if !r.OK {
			b.WriteString(" " + r.Error)
		}
	}
	return b.String()
}

// withMember adds "key": value to obj, the JSON of an object.
func withMember(obj []byte, key string, value any) (json.RawMessage, error) {
	obj = bytes.TrimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, errors.New("the structured result is not an object")
	}
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	k, _ := json.Marshal(key)
	var b bytes.Buffer
	b.Write(obj[:len(obj)-1])
	if len(bytes.TrimSpace(obj[1:len(obj)-1])) > 0 {
		b.WriteByte(',')
	}
	b.Write(k)
	b.WriteByte(':')
	b.Write(v)
	b.WriteByte('}')
	return b.Bytes(), nil
}
