package lspclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"
)

// bufferConn is an in-memory stream: reads come from in, writes go to out
// and are counted.
type bufferConn struct {
	in     io.Reader
	out    bytes.Buffer
	writes int
}

func (b *bufferConn) Read(p []byte) (int, error) { return b.in.Read(p) }
func (b *bufferConn) Write(p []byte) (int, error) {
	b.writes++
	return b.out.Write(p)
}
func (b *bufferConn) Close() error { return nil }

// TestStreamFraming writes messages of every kind through the stream and
// reads them back: each is one write, and each comes back whole, with the
// results of calls set aside by id.
func TestStreamFraming(t *testing.T) {
	ctx := context.Background()
	w := newLSPStream(&bufferConn{in: strings.NewReader("")})
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(7), "textDocument/hover", map[string]any{"x": "é\u2028"})
	note, _ := jsonrpc2.NewNotification("$/progress", map[string]any{"token": "t"})
	ok, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(3), []int{1, 2}, nil)
	failed, _ := jsonrpc2.NewResponse(jsonrpc2.NewStringID("s"), nil, &jsonrpc2.Error{Code: -32601, Message: "no such method"})
	for _, m := range []jsonrpc2.Message{call, note, ok, failed} {
		if _, err := w.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	conn := w.conn.(*bufferConn)
	if conn.writes != 4 {
		t.Errorf("4 messages took %d writes, want 4", conn.writes)
	}

	r := newLSPStream(&bufferConn{in: bytes.NewReader(conn.out.Bytes())})
	type got struct {
		Kind, Method, Params, Result, Error string
	}
	var all []got
	for range 4 {
		m, _, err := r.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *jsonrpc2.Call:
			all = append(all, got{Kind: fmt.Sprintf("call %v", m.ID()), Method: m.Method(), Params: string(m.Params())})
		case *jsonrpc2.Notification:
			all = append(all, got{Kind: "notification", Method: m.Method(), Params: string(m.Params())})
		case *jsonrpc2.Response:
			res, taken := r.results.take(m.ID())
			g := got{Kind: fmt.Sprintf("response %v", m.ID()), Result: string(res)}
			if !taken {
				g.Result = "(not set aside)"
			}
			if m.Err() != nil {
				g.Error = m.Err().Error()
			}
			all = append(all, g)
		}
	}
	want := []got{
		{Kind: "call 7", Method: "textDocument/hover", Params: `{"x":"é\u2028"}`},
		{Kind: "notification", Method: "$/progress", Params: `{"token":"t"}`},
		{Kind: "response 3", Result: `[1,2]`},
		{Kind: "response s", Error: "no such method"},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("messages read back (-want +got):\n%s", diff)
	}
	if _, _, err := r.Read(ctx); err == nil {
		t.Error("reading past the last message: no error")
	}
}

// TestEditorStreamFraming writes messages of every kind through an
// editor's stream and reads them back: each is one write, and each reads
// back as jsonrpc2's own decoder reads it, a response with its result.
func TestEditorStreamFraming(t *testing.T) {
	ctx := context.Background()
	w := newEditorStream(&bufferConn{in: strings.NewReader("")})
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewStringID("a-1"), "textDocument/hover", map[string]any{"x": "é\u2028", "n": []int{1}})
	note, _ := jsonrpc2.NewNotification("textDocument/didChange", map[string]any{"contentChanges": []any{map[string]any{"text": "package p\n"}}})
	bare, _ := jsonrpc2.NewNotification("exit", nil)
	ok, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(3), map[string]bool{"applied": true}, nil)
	failed, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(4), nil, &jsonrpc2.Error{Code: -32800, Message: "cancelled"})
	msgs := []jsonrpc2.Message{call, note, bare, ok, failed}
	for _, m := range msgs {
		if _, err := w.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	conn := w.conn.(*bufferConn)
	if conn.writes != len(msgs) {
		t.Errorf("%d messages took %d writes, want %d", len(msgs), conn.writes, len(msgs))
	}
	type got struct {
		Kind, Method, Params, Result, Error string
	}
	describe := func(m jsonrpc2.Message) got {
		switch m := m.(type) {
		case *jsonrpc2.Call:
			return got{Kind: fmt.Sprintf("call %v", m.ID()), Method: m.Method(), Params: string(m.Params())}
		case *jsonrpc2.Notification:
			return got{Kind: "notification", Method: m.Method(), Params: string(m.Params())}
		case *jsonrpc2.Response:
			g := got{Kind: fmt.Sprintf("response %v", m.ID()), Result: string(m.Result())}
			if m.Err() != nil {
				g.Error = m.Err().Error()
			}
			return g
		}
		return got{Kind: fmt.Sprintf("%T", m)}
	}
	r := newEditorStream(&bufferConn{in: bytes.NewReader(conn.out.Bytes())})
	for _, sent := range msgs {
		m, _, err := r.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(sent)
		ref, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(describe(ref), describe(m)); diff != "" {
			t.Errorf("%s read back (-jsonrpc2's +ours):\n%s", body, diff)
		}
	}
	if _, _, err := r.Read(ctx); err == nil {
		t.Error("reading past the last message: no error")
	}
}

// TestStreamBadInput checks that malformed framing is an error, not a
// hang or a panic.
func TestStreamBadInput(t *testing.T) {
	for name, input := range map[string]string{
		"no length":      "Content-Type: x\r\n\r\n{}",
		"bad length":     "Content-Length: -3\r\n\r\n{}",
		"no colon":       "Content-Length 3\r\n\r\n{}",
		"short body":     "Content-Length: 10\r\n\r\n{}",
		"long header":    strings.Repeat("x", 70000) + "\r\n\r\n",
		"not json":       "Content-Length: 3\r\n\r\n{{{",
		"neither":        "Content-Length: 2\r\n\r\n{}",
		"wrong id types": `Content-Length: 24` + "\r\n\r\n" + `{"id":{},"result":null}`,
	} {
		r := newLSPStream(&bufferConn{in: strings.NewReader(input)})
		if m, _, err := r.Read(context.Background()); err == nil {
			t.Errorf("%s: read %v, want an error", name, m)
		}
		e := newEditorStream(&bufferConn{in: strings.NewReader(input)})
		if m, _, err := e.Read(context.Background()); err == nil {
			t.Errorf("%s: the editor's stream read %v, want an error", name, m)
		}
	}
}

// TestResultTable checks that a result is kept until taken, and that one
// arriving for a call that already ended is dropped rather than kept.
func TestResultTable(t *testing.T) {
	var tab resultTable
	id1, id2 := jsonrpc2.NewNumberID(1), jsonrpc2.NewNumberID(2)
	tab.put(id1, json.RawMessage(`1`))
	if res, ok := tab.take(id1); !ok || string(res) != "1" {
		t.Errorf("take after put = %s, %v", res, ok)
	}
	// Call 2 was cancelled before its answer came.
	if _, ok := tab.take(id2); ok {
		t.Error("take before put found a result")
	}
	tab.put(id2, json.RawMessage(`2`))
	if n := tab.size(); n != 0 {
		t.Errorf("after a late answer to an ended call the table holds %d entries, want 0", n)
	}
}
