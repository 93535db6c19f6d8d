package lspclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRelayFrameReuse writes messages of falling and rising sizes (one
// above the size a buffer is kept at) through one write buffer and reads
// them back through one read buffer, as the relay does with gopls's
// answers: each message is one write and comes back whole, with nothing
// of a longer one before it left over.
func TestRelayFrameReuse(t *testing.T) {
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", 5000) + `"}`,
		`{"jsonrpc":"2.0","id":2,"result":null}`,
		`{"jsonrpc":"2.0","id":3,"result":"` + strings.Repeat("é", keptFrame) + `"}`,
		`{"jsonrpc":"2.0","method":"window/logMessage","params":{}}`,
		`{}`,
	}
	conn := &bufferConn{}
	var wbuf []byte
	for _, b := range bodies {
		if _, err := writeMessage(conn, &wbuf, []byte(b)); err != nil {
			t.Fatal(err)
		}
		if cap(wbuf) > keptFrame {
			t.Errorf("after a %d-byte message the write buffer keeps %d bytes, want at most %d", len(b), cap(wbuf), keptFrame)
		}
	}
	if conn.writes != len(bodies) {
		t.Errorf("%d messages took %d writes, want %d", len(bodies), conn.writes, len(bodies))
	}
	br := bufio.NewReader(bytes.NewReader(conn.out.Bytes()))
	var rbuf []byte
	for _, want := range bodies {
		got, err := readMessage(br, rbuf)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("read back (-want +got):\n%.400s", diff)
		}
		rbuf = got
	}
	if _, err := readMessage(br, rbuf); err == nil {
		t.Error("reading past the last message: no error")
	}
}

// TestSkipToHeader: the relay takes an editor's input back from a server
// that may have been lost in the middle of reading a message; what is
// left of that message is skipped, up to the next header, whatever its
// case, and a stream already at a header loses nothing.
func TestSkipToHeader(t *testing.T) {
	next := "Content-Length: 2\r\n\r\n{}"
	for _, tc := range []struct{ name, in, want string }{
		{"at a header", next, next},
		{"in a body", `"params":{"text":"x"}}` + next, next},
		{"in a header", "ength: 40\r\n\r\n" + `{"id":1}` + next, next},
		{"lower case", `}}content-length: 2` + "\r\n\r\n{}", "content-length: 2\r\n\r\n{}"},
	} {
		br := bufio.NewReader(strings.NewReader(tc.in))
		if err := skipToHeader(br); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		rest, _ := io.ReadAll(br)
		if diff := cmp.Diff(tc.want, string(rest)); diff != "" {
			t.Errorf("%s: what is left (-want +got):\n%s", tc.name, diff)
		}
	}
	if err := skipToHeader(bufio.NewReader(strings.NewReader(`{"id":1}`))); err == nil {
		t.Error("a stream that ends without a header: no error")
	}
}

// TestStandByKeepsReports: what a server's Reporter writes is what the
// relay standing by keeps — the editor's text after its changes, its
// requests unanswered (and no longer once answered) — and the relay
// goes when the Reporter says the editor ended.
func TestStandByKeepsReports(t *testing.T) {
	pr, pw := io.Pipe()
	rep := NewReporter(pw)
	r := &relay{docs: map[string]*relayDoc{}, pending: map[string]relayMsg{}, serverCalls: map[string]int{}}
	r.opts.Logger = slog.New(slog.DiscardHandler)
	done := make(chan error, 1)
	go func() { done <- r.standBy(context.Background(), &Handed{Control: pr}) }()
	msg := func(m map[string]any) (string, []byte) {
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		method, _ := m["method"].(string)
		return method, body
	}
	doc := map[string]any{"uri": "file:///w/a.go", "languageId": "go", "version": 1, "text": "package a\n"}
	rep.Observe(msg(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": doc}}))
	rep.Observe(msg(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
		"textDocument":   map[string]any{"uri": "file:///w/a.go", "version": 2},
		"contentChanges": []any{map[string]any{"text": "package a\n\nvar X int\n"}}}}))
	rep.Observe(msg(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": map[string]any{}}))
	rep.Observe(msg(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "textDocument/references", "params": map[string]any{}}))
	rep.Observe(msg(map[string]any{"jsonrpc": "2.0", "method": answeredMethod, "params": map[string]any{"id": 7}}))
	if err := rep.End(false); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the relay stopped standing by before the editor ended: %v", err)
	default:
	}
	if err := rep.End(true); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("standBy after the editor ended: %v", err)
	}
	got := map[string]any{"text": r.docs["file:///w/a.go"].text, "version": r.docs["file:///w/a.go"].version, "pending": slices.Sorted(maps.Keys(r.pending))}
	want := map[string]any{"text": "package a\n\nvar X int\n", "version": int32(2), "pending": []string{"8"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the relay keeps (-want +got):\n%s", diff)
	}
}
