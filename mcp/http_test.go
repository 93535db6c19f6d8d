package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testToken = "test-token-0123456789"

// startHTTP serves s over HTTP on a loopback port until the test ends.
func startHTTP(t *testing.T, s *Server, opts *HTTPOptions) (*HTTPHandler, string) {
	t.Helper()
	if opts == nil {
		opts = &HTTPOptions{}
	}
	if opts.Token == "" {
		opts.Token = testToken
	}
	h, err := s.NewHTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	// Cleanups run last first: the sessions end (closing their streams)
	// before the server waits for its connections.
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	return h, ts.URL + HTTPPath
}

// peer is a raw client of the HTTP transport: it sends what a test says,
// headers included, and reads whole answers.
type peer struct {
	t       *testing.T
	url     string
	session string
	version string
}

// answer is one HTTP response, read to its end.
type answer struct {
	status int
	header http.Header
	body   string
	// msgs are the JSON-RPC messages of the body: the JSON body, or the
	// data of each event of an event stream.
	msgs []string
}

// do sends a request with the peer's token, session and version, which
// hdr may override ("" removes a header).
func (p *peer) do(ctx context.Context, method, body string, hdr map[string]string) *answer {
	p.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, p.url, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
	}
	if p.version != "" {
		req.Header.Set("MCP-Protocol-Version", p.version)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatalf("%s: reading the body: %v", method, err)
	}
	a := &answer{status: resp.StatusCode, header: resp.Header, body: string(data)}
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "text/event-stream"):
		a.msgs = sseData(p.t, string(data))
	case strings.HasPrefix(ct, "application/json") && len(data) > 0:
		a.msgs = []string{string(data)}
	}
	return a
}

func (p *peer) post(body string) *answer {
	p.t.Helper()
	return p.do(context.Background(), http.MethodPost, body, nil)
}

// sseData returns the data of each event of an event stream.
func sseData(t *testing.T, stream string) []string {
	t.Helper()
	var out []string
	var data []string
	for line := range strings.SplitSeq(stream, "\n") {
		switch {
		case line == "":
			if len(data) > 0 {
				out = append(out, strings.Join(data, "\n"))
				data = nil
			}
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case strings.HasPrefix(line, "event: "), strings.HasPrefix(line, ":"):
		default:
			t.Fatalf("not an event stream line: %q", line)
		}
	}
	return out
}

// initialize opens a session at version and sends notifications/initialized.
func (p *peer) initialize(version string) *answer {
	p.t.Helper()
	a := p.post(initLine(`"init"`, version))
	if a.status != http.StatusOK || a.header.Get("Mcp-Session-Id") == "" {
		p.t.Fatalf("initialize: status %d, session %q, body %s", a.status, a.header.Get("Mcp-Session-Id"), a.body)
	}
	p.session = a.header.Get("Mcp-Session-Id")
	var res struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(a.body), &res); err != nil {
		p.t.Fatal(err)
	}
	p.version = res.Result.ProtocolVersion
	if b := p.post(initialized); b.status != http.StatusAccepted || b.body != "" {
		p.t.Fatalf("notifications/initialized: status %d, body %q; want 202 and nothing", b.status, b.body)
	}
	return a
}

// runLinesHTTP is runLines over HTTP: one session, initialized at version,
// each line POSTed in turn; it returns every message answered, then ends
// the session with DELETE.
func runLinesHTTP(t *testing.T, s *Server, version string, lines []string) []string {
	t.Helper()
	_, url := startHTTP(t, s, nil)
	p := &peer{t: t, url: url}
	p.initialize(version)
	var got []string
	for _, l := range lines {
		a := p.post(l)
		got = append(got, a.msgs...)
		// 202 exactly when there is nothing to answer; 400 exactly for
		// an error that could not name its request.
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		switch {
		case len(a.msgs) == 0 && a.status != http.StatusAccepted:
			t.Errorf("%.60s: status %d with no message; want 202", l, a.status)
		case len(a.msgs) == 1 && json.Unmarshal([]byte(a.msgs[0]), &m) == nil && m.ID == nil && a.status != http.StatusBadRequest:
			t.Errorf("%.60s: status %d for an error without id; want 400", l, a.status)
		}
	}
	if a := p.do(context.Background(), http.MethodDelete, "", nil); a.status != http.StatusOK {
		t.Errorf("DELETE: status %d", a.status)
	}
	return got
}

// TestHTTPRules checks the transport's own rules (docs/sidecar.md and the MCP
// Streamable HTTP transport): each row sends one request, after an
// initialized session unless noSession, and checks the status, the
// headers named in wantHeader and the body's message.
func TestHTTPRules(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	pong := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name       string
		noSession  bool
		method     string
		path       string
		body       string
		hdr        map[string]string
		wantStatus int
		wantHeader map[string]string
		wantMsg    string // the body's single message, "" for none
		wantInBody string // a part of the error message
	}{
		{name: "ping", method: "POST", body: ping, wantStatus: 200, wantHeader: map[string]string{"Content-Type": "application/json"}, wantMsg: pong},
		{name: "other path", method: "POST", path: "/other", body: ping, wantStatus: 404, wantInBody: "the MCP endpoint is /mcp"},
		{name: "missing token", method: "POST", body: ping, hdr: map[string]string{"Authorization": ""}, wantStatus: 401,
			wantHeader: map[string]string{"WWW-Authenticate": `Bearer realm="goplsmcp"`}, wantInBody: "Authorization: Bearer"},
		{name: "wrong token", method: "POST", body: ping, hdr: map[string]string{"Authorization": "Bearer " + testToken + "x"}, wantStatus: 401},
		{name: "token as basic auth", method: "POST", body: ping, hdr: map[string]string{"Authorization": "Basic " + testToken}, wantStatus: 401},
		{name: "rebound host name", method: "POST", body: ping, hdr: map[string]string{"Host": "evil.example:8765"}, wantStatus: 403, wantInBody: "Host"},
		{name: "foreign origin", method: "POST", body: ping, hdr: map[string]string{"Origin": "http://evil.example"}, wantStatus: 403, wantInBody: "Origin"},
		{name: "null origin", method: "POST", body: ping, hdr: map[string]string{"Origin": "null"}, wantStatus: 403},
		{name: "loopback origin", method: "POST", body: ping, hdr: map[string]string{"Origin": "http://localhost:6274"}, wantStatus: 200, wantMsg: pong},
		{name: "localhost host", method: "POST", body: ping, hdr: map[string]string{"Host": "localhost:1"}, wantStatus: 200, wantMsg: pong},
		{name: "host checked before the token", method: "POST", body: ping, hdr: map[string]string{"Host": "evil.example", "Authorization": ""}, wantStatus: 403},
		{name: "PUT", method: "PUT", body: ping, wantStatus: 405, wantHeader: map[string]string{"Allow": "GET, POST, DELETE"}},
		{name: "not JSON", method: "POST", body: ping, hdr: map[string]string{"Content-Type": "text/plain"}, wantStatus: 415},
		{name: "accepts neither", method: "POST", body: ping, hdr: map[string]string{"Accept": "text/html"}, wantStatus: 406},
		{name: "accepts JSON only", method: "POST", body: ping, hdr: map[string]string{"Accept": "application/json"}, wantStatus: 200, wantMsg: pong},
		{name: "accepts streams only", method: "POST", body: ping, hdr: map[string]string{"Accept": "text/event-stream"}, wantStatus: 200,
			wantHeader: map[string]string{"Content-Type": "text/event-stream"}, wantMsg: pong},
		{name: "over the message cap", method: "POST", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`,
			wantStatus: 413, wantInBody: "message exceeds 4096 bytes"},
		{name: "no session", noSession: true, method: "POST", body: ping, wantStatus: 400, wantInBody: "Mcp-Session-Id header is missing"},
		{name: "no session, not even JSON", noSession: true, method: "POST", body: `{"jsonrpc"`, wantStatus: 400},
		{name: "unknown session", method: "POST", body: ping, hdr: map[string]string{"Mcp-Session-Id": "0123456789abcdef"}, wantStatus: 404, wantInBody: "initialize a new one"},
		{name: "initialize naming an unknown session", method: "POST", body: initLine("1", "2025-11-25"), hdr: map[string]string{"Mcp-Session-Id": "0123456789abcdef"}, wantStatus: 404},
		{name: "unsupported version header", method: "POST", body: ping, hdr: map[string]string{"MCP-Protocol-Version": "2099-01-01"}, wantStatus: 400, wantInBody: "unsupported MCP-Protocol-Version"},
		{name: "malformed version header", method: "POST", body: ping, hdr: map[string]string{"MCP-Protocol-Version": "not-a-version"}, wantStatus: 400},
		{name: "unsupported version header, no session", noSession: true, method: "POST", body: ping, hdr: map[string]string{"MCP-Protocol-Version": "2000-01-01"}, wantStatus: 400, wantInBody: "unsupported"},
		{name: "another supported version than negotiated", method: "POST", body: ping, hdr: map[string]string{"MCP-Protocol-Version": "2025-06-18"}, wantStatus: 200, wantMsg: pong},
		{name: "no version header", method: "POST", body: ping, hdr: map[string]string{"MCP-Protocol-Version": ""}, wantStatus: 200, wantMsg: pong},
		{name: "notification", method: "POST", body: `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, wantStatus: 202},
		{name: "response from the client", method: "POST", body: `{"jsonrpc":"2.0","id":"s1","result":{}}`, wantStatus: 202},
		{name: "malformed JSON", method: "POST", body: `{"jsonrpc":"2.0",`, wantStatus: 400, wantMsg: errLine("", "-32700", "Parse error")},
		{name: "batch", method: "POST", body: "[" + ping + "]", wantStatus: 400, wantMsg: errLine("", "-32600", "Invalid Request: batches are not supported")},
		{name: "error naming its request", method: "POST", body: `{"jsonrpc":"2.0","id":7,"method":"no/such"}`, wantStatus: 200, wantMsg: errLine("7", "-32601", "Method not found")},
		{name: "second initialize", method: "POST", body: initLine("2", "2025-11-25"), wantStatus: 200,
			wantMsg: errLine("2", "-32600", "Invalid Request: the session is already initialized")},
		{name: "GET without session", noSession: true, method: "GET", wantStatus: 400},
		{name: "GET without streams", method: "GET", hdr: map[string]string{"Accept": "application/json"}, wantStatus: 406},
		{name: "DELETE unknown session", method: "DELETE", hdr: map[string]string{"Mcp-Session-Id": "0123456789abcdef"}, wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testServer(t, &Options{MaxMessageBytes: 4096})
			_, url := startHTTP(t, s, nil)
			p := &peer{t: t, url: url}
			if !tt.noSession {
				p.initialize("2025-11-25")
			}
			p.url = strings.TrimSuffix(url, HTTPPath) + cmpOr(tt.path, HTTPPath)
			a := p.do(context.Background(), tt.method, tt.body, tt.hdr)
			if a.status != tt.wantStatus {
				t.Errorf("status %d, want %d (body %s)", a.status, tt.wantStatus, a.body)
			}
			for k, v := range tt.wantHeader {
				if got := a.header.Get(k); got != v {
					t.Errorf("header %s: %q, want %q", k, got, v)
				}
			}
			switch {
			case tt.wantMsg != "":
				if diff := sameMessages(t, []string{tt.wantMsg}, a.msgs); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			case tt.wantStatus < 300 && a.body != "":
				t.Errorf("body %q, want none", a.body)
			case tt.wantStatus >= 400:
				// An HTTP error carries a JSON-RPC error without id
				// that says what to do.
				var m struct {
					ID    json.RawMessage `json:"id"`
					Error *Error          `json:"error"`
				}
				if err := json.Unmarshal([]byte(a.body), &m); err != nil || m.Error == nil || m.ID != nil {
					t.Errorf("body %q is not a JSON-RPC error without id", a.body)
				} else if !strings.Contains(m.Error.Message, tt.wantInBody) {
					t.Errorf("error message %q does not contain %q", m.Error.Message, tt.wantInBody)
				}
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestHTTPVersionHeader checks docs/sidecar.md's MCP-Protocol-Version rule: on
// a session, any supported version is accepted (a session negotiated at
// 2025-11-25 takes a request headed 2025-03-26, and the other way round),
// on POST, GET and DELETE alike, and the session goes on answering as the
// version it negotiated; an unsupported version is 400, before anything
// else happens.
func TestHTTPVersionHeader(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":"list","method":"tools/list"}`
	for _, tc := range []struct{ negotiated, header string }{
		{"2025-11-25", "2025-03-26"},
		{"2025-11-25", "2024-11-05"},
		{"2025-03-26", "2025-11-25"},
	} {
		t.Run(tc.negotiated+" headed "+tc.header, func(t *testing.T) {
			s := testServer(t, nil)
			_, url := startHTTP(t, s, nil)
			p := &peer{t: t, url: url}
			p.initialize(tc.negotiated)
			hdr := map[string]string{"MCP-Protocol-Version": tc.header}

			a := p.do(context.Background(), http.MethodPost, list, hdr)
			if a.status != http.StatusOK || len(a.msgs) != 1 {
				t.Fatalf("tools/list headed %s: status %d, body %s", tc.header, a.status, a.body)
			}
			// Version-gated fields follow the negotiated version, not
			// the header.
			hasSchema := strings.Contains(a.msgs[0], `"outputSchema"`)
			if want := tc.negotiated >= "2025-06-18"; hasSchema != want {
				t.Errorf("tools/list on a session at %s headed %s: outputSchema sent %v, want %v", tc.negotiated, tc.header, hasSchema, want)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Mcp-Session-Id", p.session)
			req.Header.Set("MCP-Protocol-Version", tc.header)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET headed %s: status %d", tc.header, resp.StatusCode)
			}
			cancel()
			resp.Body.Close()

			if a := p.do(context.Background(), http.MethodDelete, "", hdr); a.status != http.StatusOK {
				t.Errorf("DELETE headed %s: status %d, body %s", tc.header, a.status, a.body)
			}
		})
	}

	t.Run("unsupported", func(t *testing.T) {
		s := testServer(t, nil)
		_, url := startHTTP(t, s, nil)
		p := &peer{t: t, url: url}
		p.initialize("2025-11-25")
		for _, v := range []string{"2099-01-01", "2025-11-24", "1.0", "2025-11-25,2025-03-26"} {
			for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
				body := ""
				if method == http.MethodPost {
					body = list
				}
				// A GET wrongly accepted would stream until the deadline.
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				a := p.do(ctx, method, body, map[string]string{"MCP-Protocol-Version": v})
				cancel()
				if a.status != http.StatusBadRequest || !strings.Contains(a.body, "unsupported MCP-Protocol-Version") {
					t.Errorf("%s headed %q: status %d, body %s; want 400 naming the version", method, v, a.status, a.body)
				}
			}
		}
		// The refused DELETEs ended nothing: the session still answers.
		if a := p.post(list); a.status != http.StatusOK || len(a.msgs) != 1 {
			t.Errorf("tools/list after the refused requests: status %d, body %s", a.status, a.body)
		}
	})
}

// TestHTTPSessionLifecycle checks sessions (docs/sidecar.md): initialize issues an
// unguessable Mcp-Session-Id that is the session's id as handlers see it;
// a failed initialize opens none; two sessions are distinct; DELETE ends
// one (404 afterwards) and the server's session-end hook runs for it.
func TestHTTPSessionLifecycle(t *testing.T) {
	s := testServer(t, nil)
	ended := make(chan string, 10)
	s.OnSessionEnd(func(id string) { ended <- id })
	_, url := startHTTP(t, s, nil)

	bad := &peer{t: t, url: url}
	a := bad.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if a.status != http.StatusOK || a.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("failed initialize: status %d, session %q; want 200 and no session", a.status, a.header.Get("Mcp-Session-Id"))
	}
	if diff := sameMessages(t, []string{errLine("1", "-32602", "Invalid params: protocolVersion must be a non-empty string")}, a.msgs); diff != "" {
		t.Errorf("failed initialize (-want +got):\n%s", diff)
	}
	within(t, "the end of the session that failed to initialize", ended)

	peers := []*peer{{t: t, url: url}, {t: t, url: url}}
	for _, p := range peers {
		p.initialize("2025-06-18")
		if len(p.session) < 32 || strings.Trim(p.session, "0123456789abcdef") != "" {
			t.Errorf("session id %q: want at least 128 random bits in hex", p.session)
		}
		// The progress tool answers with its session's id.
		a := p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"steps":0}}}`)
		var res struct {
			Result struct {
				StructuredContent echoOut `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(a.body), &res); err != nil {
			t.Fatalf("%v: %s", err, a.body)
		}
		if got := res.Result.StructuredContent.Echo; got != p.session {
			t.Errorf("SessionID in the handler = %q, want the Mcp-Session-Id %q", got, p.session)
		}
	}
	if peers[0].session == peers[1].session {
		t.Fatalf("two sessions share the id %s", peers[0].session)
	}
	if a := peers[0].do(context.Background(), http.MethodDelete, "", nil); a.status != http.StatusOK {
		t.Fatalf("DELETE: status %d %s", a.status, a.body)
	}
	if got := within(t, "the end of the deleted session", ended); got != peers[0].session {
		t.Errorf("session-end hook got %q, want %q", got, peers[0].session)
	}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		if a := peers[0].do(context.Background(), method, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil); a.status != http.StatusNotFound {
			t.Errorf("%s after DELETE: status %d, want 404", method, a.status)
		}
	}
	if a := peers[1].post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != http.StatusOK {
		t.Errorf("the other session after DELETE: status %d", a.status)
	}
}

// TestHTTPProgressStreams checks docs/sidecar.md's "SSE for streamed progress": a call
// with a progress token whose client accepts event streams is answered as
// an event stream, progress first and the response last; without a token,
// or to a client that takes only JSON, the answer is one JSON response.
func TestHTTPProgressStreams(t *testing.T) {
	_, url := startHTTP(t, testServer(t, nil), nil)
	p := &peer{t: t, url: url}
	p.initialize("2025-11-25")
	withToken := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":"tok"}}}`

	a := p.post(withToken)
	if ct := a.header.Get("Content-Type"); a.status != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("status %d, content type %q; want 200 and an event stream", a.status, ct)
	}
	if len(a.msgs) != 4 {
		t.Fatalf("%d events, want 3 progress and the response: %q", len(a.msgs), a.msgs)
	}
	for i, m := range a.msgs[:3] {
		want := map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
			"params": map[string]any{"progressToken": "tok", "progress": float64(i + 1), "message": "step " + string(rune('1'+i))}}
		var got map[string]any
		if err := json.Unmarshal([]byte(m), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("event %d (-want +got):\n%s", i, diff)
		}
	}
	var last struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(a.msgs[3]), &last); err != nil || last.ID != 1 || last.Result == nil {
		t.Errorf("last event %q, want the response to id 1", a.msgs[3])
	}

	for name, hdr := range map[string]map[string]string{
		"no token":  nil,
		"JSON only": {"Accept": "application/json"},
	} {
		body := withToken
		if hdr == nil {
			body = strings.Replace(withToken, `,"_meta":{"progressToken":"tok"}`, "", 1)
		}
		a := p.do(context.Background(), http.MethodPost, body, hdr)
		if ct := a.header.Get("Content-Type"); a.status != http.StatusOK || ct != "application/json" || len(a.msgs) != 1 {
			t.Errorf("%s: status %d, content type %q, messages %q; want the response alone, as JSON", name, a.status, ct, a.msgs)
		}
	}
}

// TestHTTPEventStream checks the GET stream: the session's own messages
// (log messages) arrive on it, those sent before it opened included, and a
// second stream for the same session is refused (409), since a message
// goes to one stream only.
func TestHTTPEventStream(t *testing.T) {
	s := testServer(t, nil)
	_, url := startHTTP(t, s, nil)
	p := &peer{t: t, url: url}
	p.initialize("2025-11-25")
	s.Log(LevelError, "test", "before the stream")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", p.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- d
			}
		}
		close(events)
	}()
	if a := p.do(context.Background(), http.MethodGet, "", nil); a.status != http.StatusConflict {
		t.Errorf("second GET: status %d, want 409", a.status)
	}
	s.Log(LevelWarning, "test", "on the stream")
	s.Log(LevelInfo, "test", "below the session's level")
	for _, want := range []string{"before the stream", "on the stream"} {
		got := within(t, "a log message on the stream", events)
		var m struct {
			Method string `json:"method"`
			Params struct {
				Data string `json:"data"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(got), &m); err != nil || m.Method != "notifications/message" || m.Params.Data != want {
			t.Errorf("event %q, want the log message %q", got, want)
		}
	}
	// Responses never travel on this stream.
	if a := p.post(`{"jsonrpc":"2.0","id":"x","method":"ping"}`); len(a.msgs) != 1 {
		t.Errorf("ping: %q", a.msgs)
	}
	s.Log(LevelError, "test", "last")
	if got := within(t, "the last log message", events); !strings.Contains(got, `"last"`) {
		t.Errorf("after a ping the stream carried %q, want only log messages", got)
	}
}

// TestHTTPCancellation checks that notifications/cancelled over HTTP
// stops the call, which then gets no response (its POST ends with an
// empty stream), and that a client disconnecting is not a cancellation.
func TestHTTPCancellation(t *testing.T) {
	g := newGateServer(t, nil)
	_, url := startHTTP(t, g.Server, nil)
	p := &peer{t: t, url: url}
	p.initialize("2025-11-25")

	answered := make(chan *answer, 1)
	go func() { answered <- p.post(gateCall("a")) }()
	within(t, "the call to start", g.started)
	if a := p.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`); a.status != http.StatusAccepted {
		t.Errorf("cancel: status %d", a.status)
	}
	within(t, "the call to stop", g.stopped)
	if a := within(t, "the cancelled call's POST to end", answered); a.status != http.StatusOK || len(a.msgs) != 0 {
		t.Errorf("cancelled call: status %d, messages %q; want an empty stream", a.status, a.msgs)
	}

	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(gateCall("b")))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", p.session)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	within(t, "the second call to start", g.started)
	cancel()
	<-gone
	select {
	case id := <-g.stopped:
		t.Errorf("call %s stopped when its client went away", id)
	default:
	}
	close(g.release)
	if a := p.post(gateCall("c")); len(a.msgs) != 1 || !strings.Contains(a.msgs[0], `"echo":"c"`) {
		t.Errorf("a call after the disconnection: %q", a.msgs)
	}
}

// TestHTTPIdleTimeout checks that a session without requests ends after
// the idle timeout (404 afterwards), while one with an event stream open
// stays.
func TestHTTPIdleTimeout(t *testing.T) {
	s := testServer(t, nil)
	ended := make(chan string, 10)
	s.OnSessionEnd(func(id string) { ended <- id })
	_, url := startHTTP(t, s, &HTTPOptions{IdleTimeout: 200 * time.Millisecond})
	idle, streaming := &peer{t: t, url: url}, &peer{t: t, url: url}
	idle.initialize("2025-11-25")
	streaming.initialize("2025-11-25")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", streaming.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v %v", err, resp)
	}
	defer resp.Body.Close()

	if got := within(t, "the idle session to end", ended); got != idle.session {
		t.Fatalf("session %q ended, want the idle one %q", got, idle.session)
	}
	if a := idle.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != http.StatusNotFound {
		t.Errorf("idle session: status %d, want 404", a.status)
	}
	// The idle session ended after 200 ms; the streaming one has been
	// idle-free as long, and answers.
	if a := streaming.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); a.status != http.StatusOK {
		t.Errorf("session with an open stream: status %d, want 200", a.status)
	}
}

// TestHTTPConcurrentCalls sends many calls at once from two sessions and
// checks that each is answered once, on its own POST.
func TestHTTPConcurrentCalls(t *testing.T) {
	_, url := startHTTP(t, testServer(t, nil), nil)
	peers := []*peer{{t: t, url: url}, {t: t, url: url}}
	for _, p := range peers {
		p.initialize("2025-11-25")
	}
	var wg sync.WaitGroup
	for i := range 40 {
		p := peers[i%2]
		wg.Go(func() {
			text := p.session[:4] + string(rune('a'+i%26))
			a := p.post(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`)
			if len(a.msgs) != 1 || !strings.Contains(a.msgs[0], `"echo":"`+text+`"`) {
				t.Errorf("call %d: %q", i, a.msgs)
			}
		})
	}
	wg.Wait()
}

// TestServeStreamableHTTPShutdown checks that cancelling the serving
// context ends everything within the shutdown bound: a call in progress
// is answered (cancelled), an open event stream closes, the session-end
// hook runs, and the goroutines are gone.
func TestServeStreamableHTTPShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	g := newGateServer(t, nil)
	ended := make(chan string, 10)
	g.OnSessionEnd(func(id string) { ended <- id })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- g.ServeStreamableHTTP(ctx, ln, &HTTPOptions{Token: testToken}) }()
	url := "http://" + ln.Addr().String() + HTTPPath
	p := &peer{t: t, url: url}
	p.initialize("2025-11-25")

	streamCtx, stopStream := context.WithCancel(context.Background())
	defer stopStream()
	req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", p.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	streamDone := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		streamDone <- err
	}()
	answered := make(chan *answer, 1)
	go func() { answered <- p.post(gateCall("a")) }()
	within(t, "the call to start", g.started)

	start := time.Now()
	cancel()
	if err := within(t, "ServeStreamableHTTP to return", served); err != nil {
		t.Errorf("ServeStreamableHTTP: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	a := within(t, "the call's answer", answered)
	if len(a.msgs) != 1 || !strings.Contains(a.msgs[0], "cancelled") {
		t.Errorf("call in progress at shutdown: %d %q, want its cancellation", a.status, a.msgs)
	}
	within(t, "the event stream to close", streamDone)
	within(t, "the session-end hook", ended)
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after shutdown, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestHTTPNeedsToken checks that the transport refuses to start without a
// token: there is no unauthenticated mode.
func TestHTTPNeedsToken(t *testing.T) {
	if _, err := testServer(t, nil).NewHTTPHandler(&HTTPOptions{}); err == nil {
		t.Error("NewHTTPHandler without a token succeeded")
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8765": true, "localhost:1": true, "[::1]:80": true, "127.1.2.3:9": true,
		"0.0.0.0:8765": false, ":8765": false, "10.0.0.1:80": false, "example.com:80": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
