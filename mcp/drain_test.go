package mcp

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// untilRefused sends requests made by next(i) until one is answered with
// CodeShuttingDown, as requests are once the session has seen the end of
// its context; the ones before are answered normally. It fails after 10 s.
func (ps *pipeSession) untilRefused(next func(i int) string) map[string]any {
	ps.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		ps.send(next(i))
		m := ps.recv()
		if errorCode(m) == CodeShuttingDown {
			return m
		}
		if m["result"] == nil {
			ps.t.Fatalf("request %d while draining: %v, want a result or CodeShuttingDown", i, m)
		}
	}
	ps.t.Fatal("no request was refused within 10 s of the end of the context")
	return nil
}

// ended waits for ServeStdio to return and returns its error, leaving it
// for the session's cleanup too.
func (ps *pipeSession) ended() error {
	ps.t.Helper()
	err := within(ps.t, "ServeStdio to return", ps.done)
	ps.done <- err
	return err
}

// TestStdioDrain checks the drain over stdio: once the serving context
// ends, the call in flight runs on to its answer, new requests are refused
// with CodeShuttingDown (ping is still answered), a cancellation still
// stops a call, and ServeStdio returns when the calls have been answered.
func TestStdioDrain(t *testing.T) {
	g := newGateServer(t, &Options{DrainTimeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ps := startSessionContext(t, g.Server, ctx)
	ps.initialize("2025-11-25")
	ps.send(gateCall("slow"))
	ps.send(gateCall("dropped"))
	within(t, "the first call to start", g.started)
	within(t, "the second call to start", g.started)
	cancel()
	m := ps.untilRefused(func(i int) string {
		return `{"jsonrpc":"2.0","id":"list` + strconv.Itoa(i) + `","method":"tools/list"}`
	})
	if msg, _ := m["error"].(map[string]any)["message"].(string); !strings.HasPrefix(msg, "Server shutting down") {
		t.Errorf("refusal %q", msg)
	}
	ps.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := ps.recv(); m["id"] != "p" || m["result"] == nil {
		t.Errorf("ping while draining: %v", m)
	}
	ps.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"dropped"}}`)
	if id := within(t, "the cancelled call to stop", g.stopped); id != "dropped" {
		t.Errorf("stopped %q", id)
	}
	select {
	case err := <-ps.done:
		t.Fatalf("ServeStdio returned (%v) with a call in flight", err)
	default:
	}
	close(g.release)
	m = ps.recv()
	if m["id"] != "slow" || m["result"] == nil {
		t.Errorf("the call in flight at the end of the context: %v, want its answer", m)
	}
	if err := ps.ended(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestStdioDrainTimeout checks that the drain is bounded: a call that does
// not end within it is cancelled, answered as such, and ServeStdio returns.
func TestStdioDrainTimeout(t *testing.T) {
	for _, drain := range []time.Duration{0, 50 * time.Millisecond} {
		g := newGateServer(t, &Options{DrainTimeout: drain})
		ctx, cancel := context.WithCancel(context.Background())
		ps := startSessionContext(t, g.Server, ctx)
		ps.initialize("2025-11-25")
		ps.send(gateCall("stuck"))
		within(t, "the call to start", g.started)
		cancel()
		within(t, "the call to be cancelled", g.stopped)
		if m := ps.recv(); m["id"] != "stuck" || errorCode(m) != CodeInternalError {
			t.Errorf("drain %s: the call still running at its end: %v, want its cancellation", drain, m)
		}
		if err := ps.ended(); err != nil {
			t.Errorf("drain %s: ServeStdio: %v", drain, err)
		}
	}
}

// probeGet GETs a probe path without a token.
func probeGet(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestProbes checks the orchestrator's probes: no token, Host or Origin
// needed; GET only; /healthz 200 while serving; /readyz following Ready;
// bodies that say nothing but the status.
func TestProbes(t *testing.T) {
	var ready atomic.Bool
	_, url := startHTTP(t, testServer(t, nil), &HTTPOptions{Ready: ready.Load})
	base := strings.TrimSuffix(url, HTTPPath)
	for _, tc := range []struct {
		ready      bool
		path       string
		wantStatus int
		wantBody   string
	}{
		{false, HealthPath, 200, "ok\n"},
		{false, ReadyPath, 503, "not ready\n"},
		{true, HealthPath, 200, "ok\n"},
		{true, ReadyPath, 200, "ok\n"},
	} {
		ready.Store(tc.ready)
		status, body := probeGet(t, base, tc.path)
		if status != tc.wantStatus || body != tc.wantBody {
			t.Errorf("GET %s (ready %v): %d %q, want %d %q", tc.path, tc.ready, status, body, tc.wantStatus, tc.wantBody)
		}
	}
	for _, method := range []string{http.MethodPost, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions} {
		for _, path := range []string{HealthPath, ReadyPath} {
			req, _ := http.NewRequest(method, base+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" {
				t.Errorf("%s %s: %d, Allow %q; want 405, Allow GET", method, path, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
	}
	// A probe names the server however the orchestrator reaches it.
	req, _ := http.NewRequest(http.MethodGet, base+HealthPath, nil)
	req.Host = "pod.cluster.example"
	req.Header.Set("Origin", "https://elsewhere.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET %s with another Host and Origin: %d, want 200", HealthPath, resp.StatusCode)
	}
}

// TestHTTPDrain checks the drain over HTTP: once the serving context ends,
// the call in flight runs on to its answer while new sessions, requests
// and event streams are refused with 503 and Retry-After, and /readyz says
// 503 while /healthz says 200; a cancellation still reaches its call.
// ServeStreamableHTTP returns once the calls have been answered.
func TestHTTPDrain(t *testing.T) {
	g := newGateServer(t, &Options{DrainTimeout: time.Minute})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- g.ServeStreamableHTTP(ctx, ln, &HTTPOptions{Token: testToken}) }()
	base := "http://" + ln.Addr().String()
	p := &peer{t: t, url: base + HTTPPath}
	p.initialize("2025-11-25")
	answered := make(chan *answer, 1)
	go func() { answered <- p.post(gateCall("slow")) }()
	within(t, "the call to start", g.started)
	dropped := make(chan *answer, 1)
	go func() { dropped <- p.post(gateCall("dropped")) }()
	within(t, "the second call to start", g.started)

	cancel()
	// The drain begins when ServeStreamableHTTP sees the end of ctx.
	deadline := time.Now().Add(10 * time.Second)
	var refused *answer
	for i := 0; refused == nil && time.Now().Before(deadline); i++ {
		a := p.post(`{"jsonrpc":"2.0","id":"list` + strconv.Itoa(i) + `","method":"tools/list"}`)
		switch a.status {
		case http.StatusOK:
		case http.StatusServiceUnavailable:
			refused = a
		default:
			t.Fatalf("tools/list while draining: %d %s", a.status, a.body)
		}
	}
	if refused == nil {
		t.Fatal("no request was refused within 10 s of the end of the context")
	}
	if refused.header.Get("Retry-After") != retryAfter || !strings.Contains(refused.body, "shutting down") {
		t.Errorf("refused request: Retry-After %q, body %s", refused.header.Get("Retry-After"), refused.body)
	}
	fresh := &peer{t: t, url: p.url}
	if a := fresh.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"late","version":"0"}}}`); a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") == "" {
		t.Errorf("initialize while draining: %d, Retry-After %q; want 503 with Retry-After", a.status, a.header.Get("Retry-After"))
	}
	if a := p.do(context.Background(), http.MethodGet, "", nil); a.status != http.StatusServiceUnavailable {
		t.Errorf("GET stream while draining: %d, want 503", a.status)
	}
	if status, _ := probeGet(t, base, ReadyPath); status != http.StatusServiceUnavailable {
		t.Errorf("/readyz while draining: %d, want 503", status)
	}
	if status, _ := probeGet(t, base, HealthPath); status != http.StatusOK {
		t.Errorf("/healthz while draining: %d, want 200", status)
	}
	if a := p.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"dropped"}}`); a.status != http.StatusAccepted {
		t.Errorf("cancellation while draining: %d %s, want 202", a.status, a.body)
	}
	if id := within(t, "the cancelled call to stop", g.stopped); id != "dropped" {
		t.Errorf("stopped %q", id)
	}
	within(t, "the cancelled call's POST to end", dropped)
	select {
	case err := <-served:
		t.Fatalf("ServeStreamableHTTP returned (%v) with a call in flight", err)
	default:
	}
	close(g.release)
	a := within(t, "the call's answer", answered)
	if a.status != http.StatusOK || len(a.msgs) != 1 || !strings.Contains(a.msgs[0], `"result"`) {
		t.Errorf("the call in flight at the end of the context: %d %q, want its answer", a.status, a.msgs)
	}
	if err := within(t, "ServeStreamableHTTP to return", served); err != nil {
		t.Errorf("ServeStreamableHTTP: %v", err)
	}
}
