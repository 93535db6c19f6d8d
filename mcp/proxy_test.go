//go:build unix

package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A localServer is a server on a unix socket, with state kept per
// session: the values its "set" tool was given, by key.
type localServer struct {
	ln     net.Listener
	cancel context.CancelFunc
	done   chan error

	mu     sync.Mutex
	values map[string]map[string]string // session id → key → value
}

type setIn struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

type getOut struct {
	Value string `json:"value"`
}

func (o *getOut) Render() string { return o.Value }

func startLocal(t *testing.T, sock string) *localServer {
	t.Helper()
	ls := &localServer{values: map[string]map[string]string{}, done: make(chan error, 1)}
	s := NewServer("local", "v0", nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(AddTool(s, Tool{Name: "set", Title: "Set", Description: "Keeps a value for the session.", Annotations: readOnlyHints()}, func(ctx context.Context, in *setIn) (*getOut, error) {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		id := SessionID(ctx)
		if ls.values[id] == nil {
			ls.values[id] = map[string]string{}
		}
		ls.values[id][in.Key] = in.Value
		return &getOut{Value: in.Value}, nil
	}))
	must(AddTool(s, Tool{Name: "get", Title: "Get", Description: "Returns the session's value.", Annotations: readOnlyHints()}, func(ctx context.Context, in *setIn) (*getOut, error) {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		return &getOut{Value: ls.values[SessionID(ctx)][in.Key]}, nil
	}))
	s.OnSessionEnd(func(id string) {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		delete(ls.values, id)
	})
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ls.ln = ln
	ctx, cancel := context.WithCancel(context.Background())
	ls.cancel = cancel
	go func() { ls.done <- s.ServeLocal(ctx, ln, nil) }()
	t.Cleanup(ls.stop)
	return ls
}

// stop ends the server and every session, as a dying daemon does.
func (ls *localServer) stop() {
	ls.cancel()
	<-ls.done
	ls.done <- nil // for a second stop
}

// sessions is the number of sessions holding values.
func (ls *localServer) sessions() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.values)
}

// rememberSet remembers "set" calls by key, as a bridge remembers unsaved
// text by file.
func rememberSet(tool string, args json.RawMessage) (string, json.RawMessage, bool) {
	var in setIn
	if tool != "set" || json.Unmarshal(args, &in) != nil {
		return "", nil, false
	}
	return in.Key, nil, in.Value == ""
}

func TestProxyReplaysOnANewServer(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	sock := filepath.Join(dir, "1.sock")
	first := startLocal(t, sock)
	dials := 0
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Proxy(context.Background(), inR, outW, &ProxyOptions{
			Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
				mu.Lock()
				defer mu.Unlock()
				dials++
				return net.Dial("unix", sock)
			},
			Remember: rememberSet,
		})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatal("the proxy's output ended")
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", lines.Text())
		}
		return m
	}
	call := func(id int, tool, args string) string {
		t.Helper()
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
		m := recv()
		if m["id"] != float64(id) {
			t.Fatalf("answer to %d: %v", id, m)
		}
		res, ok := m["result"].(map[string]any)
		if !ok {
			t.Fatalf("call %d failed: %v", id, m)
		}
		return res["structuredContent"].(map[string]any)["value"].(string)
	}

	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call(1, "set", `{"key":"a","value":"1"}`)
	call(2, "set", `{"key":"b","value":"2"}`)
	call(3, "set", `{"key":"b"}`) // forgets b
	call(4, "set", `{"key":"a","value":"3"}`)
	if got := call(5, "get", `{"key":"a"}`); got != "3" {
		t.Fatalf("get a = %q, want 3", got)
	}
	// A modern call keeps nothing in the session, so nothing of it is
	// given to the next server.
	send(modernLine("50", "tools/call", `"name":"set","arguments":{"key":"c","value":"9"}`))
	if m := recv(); m["id"] != float64(50) || m["result"] == nil {
		t.Fatalf("a modern set: %v", m)
	}

	// A call of the session's version that names it in _meta is the
	// session's: what it keeps is given to the next server.
	meta, _ := json.Marshal(map[string]string{metaProtocolVersion: "2025-06-18"})
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"set","arguments":{"key":"d","value":"7"},"_meta":%s}}`, meta))
	if m := recv(); m["id"] != float64(51) || m["result"] == nil {
		t.Fatalf("a set naming 2025-06-18 in _meta: %v", m)
	}

	// The server dies with its sessions; a new one listens elsewhere.
	first.stop()
	mu.Lock()
	sock = filepath.Join(dir, "2.sock")
	mu.Unlock()
	second := startLocal(t, sock)
	if got := call(6, "get", `{"key":"a"}`); got != "3" {
		t.Errorf("after the new server, get a = %q, want 3 (the last value, given again)", got)
	}
	if got := call(7, "get", `{"key":"b"}`); got != "" {
		t.Errorf("after the new server, get b = %q, want nothing (forgotten before)", got)
	}
	if got := call(8, "get", `{"key":"c"}`); got != "" {
		t.Errorf("after the new server, get c = %q, want nothing (a modern call's, never the session's)", got)
	}
	if got := call(9, "get", `{"key":"d"}`); got != "7" {
		t.Errorf("after the new server, get d = %q, want 7 (a call of the session's version naming it in _meta, given again)", got)
	}
	mu.Lock()
	if dials != 2 {
		t.Errorf("dials: %d, want 2", dials)
	}
	mu.Unlock()
	if n := second.sessions(); n != 1 {
		t.Errorf("sessions on the new server: %d, want 1", n)
	}

	// The end of the input ends the session there too.
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Proxy: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end with its input")
	}
	// The server's session-end hook runs apart, with nothing to wait on.
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for second.sessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the session's state outlived its proxy")
		}
		<-tick.C
	}
}

func TestProxyAnswersWhenNoServer(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		Proxy(context.Background(), inR, outW, &ProxyOptions{
			Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
				return nil, fmt.Errorf("no daemon")
			},
		})
		outW.Close()
	}()
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}`+"\n")
	sc := bufio.NewScanner(outR)
	if !sc.Scan() {
		t.Fatal("no answer")
	}
	var m struct {
		ID    int    `json:"id"`
		Error *Error `json:"error"`
	}
	json.Unmarshal(sc.Bytes(), &m)
	if m.ID != 7 || m.Error == nil || m.Error.Code != CodeInternalError {
		t.Errorf("answer without a server: %s", sc.Bytes())
	}
	inW.Close()
}

func TestResponseID(t *testing.T) {
	for _, tc := range []struct {
		line string
		id   string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":12,"result":{"x":1}}`, `12`, true},
		{`{"jsonrpc":"2.0","id":"a,b","result":{}}`, `"a,b"`, true}, // parsed whole
		{`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`, `"x"`, true},
		{`{"id":3,"jsonrpc":"2.0","result":{}}`, `3`, true},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, ``, false},
		{`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, ``, false},
	} {
		id, ok := responseID([]byte(tc.line))
		if diff := cmp.Diff(tc.id, string(id)); diff != "" || ok != tc.ok {
			t.Errorf("responseID(%s) = %s, %v; want %s, %v", tc.line, id, ok, tc.id, tc.ok)
		}
	}
}

// TestProxyNeverRepeatsUnrepeatable: the server dies with two calls in
// flight, one of which must not run twice. That one is answered by the
// proxy, with the tool error the Unrepeatable option gave; the other is
// sent again to the new server, which never sees the first.
func TestProxyNeverRepeatsUnrepeatable(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "2.sock")
	second := startLocal(t, sock)
	const answer = "the server stopped during this call, so it was not sent again."
	var mu sync.Mutex
	dials := 0
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		Proxy(context.Background(), inR, outW, &ProxyOptions{
			Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
				mu.Lock()
				defer mu.Unlock()
				dials++
				if dials > 1 {
					return net.Dial("unix", sock)
				}
				// The first server takes initialize and two calls, then
				// dies without answering them.
				client, server := net.Pipe()
				go func() {
					defer server.Close()
					sc := bufio.NewScanner(server)
					calls := 0
					for sc.Scan() {
						var m struct {
							ID     json.RawMessage `json:"id"`
							Method string          `json:"method"`
						}
						json.Unmarshal(sc.Bytes(), &m)
						switch m.Method {
						case "initialize":
							fmt.Fprintf(server, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"first","version":"0"}}}`+"\n", m.ID)
						case "tools/call":
							if calls++; calls == 2 {
								return
							}
						}
					}
				}()
				return client, nil
			},
			Unrepeatable: func(tool string, args json.RawMessage) string {
				var in setIn
				if tool == "set" && json.Unmarshal(args, &in) == nil && in.Value == "once" {
					return answer
				}
				return ""
			},
		})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(outR)
	recv := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatal("the proxy's output ended")
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"set","arguments":{"key":"k","value":"once"}}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set","arguments":{"key":"j","value":"again"}}}`)
	got := map[float64]any{}
	for range 2 {
		m := recv()
		got[m["id"].(float64)] = m["result"]
	}
	want := map[float64]any{
		1: map[string]any{"content": []any{map[string]any{"type": "text", "text": answer}}, "isError": true},
		2: map[string]any{"content": []any{map[string]any{"type": "text", "text": "again"}}, "structuredContent": map[string]any{"value": "again"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers after the server died (-want +got):\n%s", diff)
	}
	second.mu.Lock()
	defer second.mu.Unlock()
	for id, values := range second.values {
		if _, ok := values["k"]; ok {
			t.Errorf("the new server's session %s was given the unrepeatable call: %v", id, values)
		}
	}
}

// TestLocalIdleAfterHealthCheck: a server whose sessions only listed its
// tools stops IdleUnused after the last one leaves; one whose session
// called a tool waits the whole Idle.
func TestLocalIdleAfterHealthCheck(t *testing.T) {
	for _, called := range []bool{false, true} {
		t.Run(fmt.Sprintf("called=%v", called), func(t *testing.T) {
			s := NewServer("idle", "0", nil)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(AddTool(s, Tool{Name: "get", Title: "Get", Description: "Returns nothing.", Annotations: readOnlyHints()}, func(ctx context.Context, in *setIn) (*getOut, error) {
				return &getOut{}, nil
			}))
			sock := filepath.Join(t.TempDir(), "s.sock")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			const unused, idle = 100 * time.Millisecond, time.Hour
			done := make(chan error, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { done <- s.ServeLocal(ctx, ln, &LocalOptions{Idle: idle, IdleUnused: unused}) }()
			conn, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(conn)
			ask := func(line string) {
				t.Helper()
				if _, err := io.WriteString(conn, line+"\n"); err != nil {
					t.Fatal(err)
				}
				if !lines.Scan() {
					t.Fatalf("no answer to %s", line)
				}
			}
			ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
			io.WriteString(conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			ask(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if called {
				ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get","arguments":{"key":"k"}}}`)
			}
			conn.Close()
			select {
			case err := <-done:
				if called {
					t.Fatalf("a server whose session called a tool stopped soon after it left: %v", err)
				}
			case <-time.After(20 * unused):
				if !called {
					t.Fatalf("a server that only answered a health check still serves %s after its session left", 20*unused)
				}
			}
		})
	}
}

// A raw connection (LocalOptions.Raw) is given, after its first line, to
// the handler it names, with the line's argument, and counts as a
// session; MCP sessions on the same socket are served as before, and a
// name no handler has is closed.
func TestLocalRaw(t *testing.T) {
	s := NewServer("raw", "0", nil)
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sessions := make(chan int, 16)
	done := make(chan error, 1)
	go func() {
		done <- s.ServeLocal(ctx, ln, &LocalOptions{
			OnSessions: func(n int) { sessions <- n },
			Raw: map[string]RawHandler{"echo": func(ctx context.Context, conn net.Conn, r io.Reader, arg string) error {
				line, err := bufio.NewReader(r).ReadString('\n')
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(conn, "%s:%s", arg, line)
				return err
			}},
		})
	}()
	dial := func() net.Conn {
		t.Helper()
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}

	raw := dial()
	io.WriteString(raw, RawHello("echo", "with arg")+"{not MCP}\n")
	got, err := bufio.NewReader(raw).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("with arg:{not MCP}\n", got); diff != "" {
		t.Errorf("the raw handler's answer (-want +got):\n%s", diff)
	}
	if n := <-sessions; n != 1 {
		t.Errorf("sessions with the raw connection: %d, want 1", n)
	}

	mcpConn := dial()
	io.WriteString(mcpConn, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	answer, err := bufio.NewReader(mcpConn).ReadString('\n')
	if err != nil || !strings.Contains(answer, `"result":{}`) {
		t.Errorf("an MCP ping beside the raw connection: %q, %v", answer, err)
	}

	unknown := dial()
	io.WriteString(unknown, RawHello("nobody", "")+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	unknown.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := unknown.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a connection for no handler: read %d bytes, %v; want it closed", n, err)
	}
	cancel()
	<-done
}
