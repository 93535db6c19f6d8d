package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// echoIn and echoOut are the types of the test tool "echo".
type echoIn struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Count int    `json:"count,omitempty"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

func (o *echoOut) Render() string { return "echo: " + o.Echo }

// testServer returns a server with an "echo" tool, a "fail" tool that
// returns an error and a "panic" tool that panics.
func testServer(t *testing.T, opts *Options) *Server {
	t.Helper()
	s := NewServer("test", "v0", opts)
	addTestTools(t, s, true)
	return s
}

// addTestTools registers the test tools, resource and prompt; "block" only
// when withBlock is set, since a session with a blocked call never ends on
// its own.
func addTestTools(t *testing.T, s *Server, withBlock bool) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(AddTool(s, Tool{Name: "echo", Title: "Echo", Description: "Echoes text.", Annotations: readOnlyHints(), Icons: testIcons},
		func(ctx context.Context, in *echoIn) (*echoOut, error) {
			return &echoOut{Echo: strings.Repeat(in.Text, min(max(in.Count, 1), 10000))}, nil
		}))
	must(AddTool(s, Tool{Name: "fail", Title: "Fail", Description: "Always fails.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *struct{}) (*echoOut, error) {
			return nil, errBoom
		}))
	must(AddTool(s, Tool{Name: "panic", Title: "Panic", Description: "Always panics.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *struct{}) (*echoOut, error) {
			panic("secret source text")
		}))
	if withBlock {
		must(AddTool(s, Tool{Name: "block", Title: "Block", Description: "Blocks until cancelled.", Annotations: readOnlyHints()},
			func(ctx context.Context, in *struct{}) (*echoOut, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}))
	}
	must(AddTool(s, Tool{Name: "linked", Title: "Linked", Description: "Answers with a resource link.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *struct{}) (*linkedOut, error) {
			return &linkedOut{Echo: "see the resource"}, nil
		}))
	must(AddTool(s, Tool{Name: "unencodable", Title: "Unencodable", Description: "Returns a value JSON cannot hold.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *struct{}) (*badOut, error) {
			return &badOut{Source: "func secret() {}", X: math.Inf(1)}, nil
		}))
	must(AddTool(s, Tool{Name: "progress", Title: "Progress", Description: "Reports progress, then answers.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *progressIn) (*echoOut, error) {
			for i := range min(in.Steps, 100) {
				ReportProgress(ctx, fmt.Sprintf("step %d", i+1))
			}
			return &echoOut{Echo: SessionID(ctx)}, nil
		}))
	must(AddResource(s, Resource{URI: "test://hello", Name: "hello", Title: "Hello", Description: "A greeting.", MIMEType: "text/plain", Icons: testIcons},
		func(ctx context.Context) (string, error) { return "hello, world", nil }))
	must(AddPrompt(s, Prompt{
		Name: "greet", Title: "Greet", Description: "Greets someone.", Icons: testIcons,
		Arguments: []PromptArgument{
			{Name: "name", Title: "Name", Description: "who to greet", Required: true},
			{Name: "style", Description: "formal or casual"},
		},
	}, func(ctx context.Context, args map[string]string) (*PromptResult, error) {
		if args["style"] == "rude" {
			return nil, InvalidParams("style must be formal or casual")
		}
		return &PromptResult{Messages: []PromptMessage{UserText("Greet " + args["name"] + ".")}}, nil
	}, func(ctx context.Context, arg, prefix string, others map[string]string) ([]string, error) {
		var out []string
		if arg == "name" {
			for _, n := range []string{"ada", "alan", "barbara", "grace"} {
				if strings.HasPrefix(n, prefix) {
					out = append(out, n+others["style"])
				}
			}
		}
		return out, nil
	}))
}

var testIcons = []Icon{{Src: "data:image/svg+xml;base64,PHN2Zy8+", MIMEType: "image/svg+xml"}}

type progressIn struct {
	Steps int `json:"steps"`
}

type linkedOut struct {
	Echo string `json:"echo"`
}

func (o *linkedOut) Render() string { return o.Echo }

func (o *linkedOut) ResourceLinks() []ResourceLink {
	return []ResourceLink{{URI: "test://hello", Name: "hello", MIMEType: "text/plain"}}
}

type badOut struct {
	Source string  `json:"source"`
	X      float64 `json:"x"`
}

func readOnlyHints() *ToolAnnotations {
	t, f := true, false
	return &ToolAnnotations{ReadOnlyHint: &t, IdempotentHint: &t, OpenWorldHint: &f}
}

type boom struct{}

func (boom) Error() string { return "the tool failed on purpose" }

var errBoom = boom{}

// pipeSession is a session over in-memory pipes, driven line by line.
type pipeSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startSession(t *testing.T, s *Server) *pipeSession {
	t.Helper()
	return startSessionContext(t, s, context.Background())
}

// startSessionContext is startSession serving until ctx is done too.
func startSessionContext(t *testing.T, s *Server, ctx context.Context) *pipeSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ps := &pipeSession{t: t, in: inW, lines: make(chan string, 100), done: make(chan error, 1)}
	go func() {
		ps.done <- s.ServeStdio(ctx, inR, outW)
		// Writes to a session that has ended fail rather than block.
		inR.CloseWithError(io.ErrClosedPipe)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			ps.lines <- sc.Text()
		}
		close(ps.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-ps.done:
		case <-time.After(5 * time.Second):
			t.Error("session did not end after its input closed")
		}
	})
	return ps
}

func (ps *pipeSession) send(line string) {
	ps.t.Helper()
	if _, err := io.WriteString(ps.in, line+"\n"); err != nil {
		ps.t.Fatalf("writing to the server: %v", err)
	}
}

// recv returns the next message from the server, decoded.
func (ps *pipeSession) recv() map[string]any {
	ps.t.Helper()
	select {
	case line, ok := <-ps.lines:
		if !ok {
			ps.t.Fatal("server output ended")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			ps.t.Fatalf("server wrote a line that is not JSON: %q", line)
		}
		return m
	case <-time.After(10 * time.Second):
		ps.t.Fatal("no message from the server within 10s")
	}
	return nil
}

// noMessage checks that nothing is written in reply to what was sent
// before a ping, by sending the ping and expecting its answer first.
func (ps *pipeSession) noMessage() {
	ps.t.Helper()
	ps.send(`{"jsonrpc":"2.0","id":"barrier","method":"ping"}`)
	m := ps.recv()
	if m["id"] != "barrier" {
		ps.t.Fatalf("expected no message before the barrier ping's answer, got %v", m)
	}
}

func (ps *pipeSession) initialize(version string) map[string]any {
	ps.t.Helper()
	ps.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	m := ps.recv()
	ps.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// errorCode returns the error code of a response, or 0.
func errorCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

// runLines runs a whole session: it initializes at version (unless version
// is ""), sends lines, closes the input and returns every message the
// server wrote after the initialize answer, once the session has ended.
// Since the session answers all calls before it ends, a message missing
// here was never sent.
func runLines(t *testing.T, s *Server, version string, lines []string) []string {
	t.Helper()
	ps := startSession(t, s)
	if version != "" {
		ps.initialize(version)
	}
	for _, l := range lines {
		ps.send(l)
	}
	ps.in.Close()
	var got []string
	for line := range ps.lines {
		got = append(got, line)
	}
	return got
}

// sameMessages compares two lists of JSON messages, ignoring their order
// (concurrent calls may be answered in any order), and reports the
// difference (-want +got).
func sameMessages(t *testing.T, want, got []string) string {
	t.Helper()
	norm := func(lines []string) []string {
		out := make([]string, 0, len(lines))
		for _, l := range lines {
			var v any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatalf("not JSON: %q", l)
			}
			b, _ := json.Marshal(v) // sorted keys
			out = append(out, string(b))
		}
		slices.Sort(out)
		return out
	}
	return cmp.Diff(norm(want), norm(got))
}

// within waits for ch to yield or close, failing after 10 s.
func within[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}
