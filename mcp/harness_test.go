package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
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
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(AddTool(s, Tool{Name: "echo", Title: "Echo", Description: "Echoes text."},
		func(ctx context.Context, in *echoIn) (*echoOut, error) {
			return &echoOut{Echo: strings.Repeat(in.Text, max(in.Count, 1))}, nil
		}))
	must(AddTool(s, Tool{Name: "fail", Description: "Always fails."},
		func(ctx context.Context, in *struct{}) (*echoOut, error) {
			return nil, errBoom
		}))
	must(AddTool(s, Tool{Name: "panic", Description: "Always panics."},
		func(ctx context.Context, in *struct{}) (*echoOut, error) {
			panic("secret source text")
		}))
	must(AddTool(s, Tool{Name: "block", Description: "Blocks until cancelled."},
		func(ctx context.Context, in *struct{}) (*echoOut, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}))
	return s
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
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ps := &pipeSession{t: t, in: inW, lines: make(chan string, 100), done: make(chan error, 1)}
	go func() {
		ps.done <- s.ServeStdio(context.Background(), inR, outW)
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
