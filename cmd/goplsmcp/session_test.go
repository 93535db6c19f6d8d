package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// session is goplsmcp spoken to in raw lines, checking everything it
// writes: every stdout line is one JSON-RPC 2.0 object, a notification
// has a method and no id, and a response answers the request awaited —
// never another.
type session struct {
	*proc
	nextID        int
	notifications int
}

// startSession starts the binary with args and initializes a session at
// the newest protocol version.
func startSession(t *testing.T, args ...string) *session {
	t.Helper()
	s := &session{proc: startBinary(t, args...), nextID: 1000}
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`)
	if m := s.await(json.RawMessage("1")); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// line reads one stdout line and checks it is a JSON-RPC message.
func (s *session) line() map[string]any {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatal("goplsmcp's stdout ended")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("goplsmcp wrote a line that is not a JSON object: %.300q", line)
		}
		if m["jsonrpc"] != "2.0" {
			s.t.Fatalf("goplsmcp wrote a line without jsonrpc 2.0: %.300q", line)
		}
		_, hasID := m["id"]
		_, hasMethod := m["method"]
		_, hasResult := m["result"]
		_, hasError := m["error"]
		switch {
		case hasMethod && !hasID:
		case !hasMethod && hasResult != hasError:
		default:
			s.t.Fatalf("goplsmcp wrote a line that is neither a notification nor a response: %.300q", line)
		}
		return m
	case <-time.After(60 * time.Second):
		s.t.Fatal("no line from goplsmcp within 60s")
	}
	return nil
}

// await reads until the response with id (raw JSON, or nil for a
// response without id), skipping notifications. Any other response fails
// the test: every answer must belong to the request that asked.
func (s *session) await(id json.RawMessage) map[string]any {
	s.t.Helper()
	for {
		m := s.line()
		if _, isNote := m["method"]; isNote {
			s.notifications++
			continue
		}
		got, hasID := m["id"]
		if id == nil {
			if hasID {
				s.t.Fatalf("want a response without id, got %v", m)
			}
			return m
		}
		var want any
		if err := json.Unmarshal(id, &want); err != nil {
			s.t.Fatal(err)
		}
		if !hasID || fmt.Sprint(got) != fmt.Sprint(want) {
			s.t.Fatalf("want the response to id %s, got %.300v", id, m)
		}
		return m
	}
}

// tool calls a tool and returns its text, whether it is an error result,
// and its structured content.
func (s *session) tool(name, args string) (text string, isError bool, structured map[string]any) {
	s.t.Helper()
	s.nextID++
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, s.nextID, name, args))
	m := s.await(json.RawMessage(fmt.Sprint(s.nextID)))
	res, ok := m["result"].(map[string]any)
	if !ok {
		s.t.Fatalf("%s %.200s: not a result: %v", name, args, m)
	}
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		s.t.Fatalf("%s %.200s: a result without content: %v", name, args, m)
	}
	text, _ = content[0].(map[string]any)["text"].(string)
	isError, _ = res["isError"].(bool)
	structured, _ = res["structuredContent"].(map[string]any)
	return text, isError, structured
}

// request sends a request of method with params (JSON) and returns the
// response.
func (s *session) request(method, params string) map[string]any {
	s.t.Helper()
	s.nextID++
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, s.nextID, method, params))
	return s.await(json.RawMessage(fmt.Sprint(s.nextID)))
}
