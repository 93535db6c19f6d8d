package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// The concurrency tests (make test runs them with -race -count=20) share
// one server on one gopls across their runs, so that each run costs its
// calls, not a gopls start: every run works on files or packages of its
// own and leaves the workspace as it found it. gopls writes its RPC trace
// to a file, which the tests read to learn in what order requests reached
// gopls, and which never did.

// concurrency is the shared server: the example module in a directory of
// its own, gopls with its RPC trace, the tools, and a test tool that
// holds a session's only handler slot (MaxInFlight is 1) until released.
type concurrency struct {
	root, trace string
	lsp         *lspclient.Client
	srv         *mcp.Server
	http        *mcp.HTTPHandler
	httpSrv     *httptest.Server
	url         string
	runs        atomic.Int64

	blockMu sync.Mutex
	block   *blocker
}

// A blocker is what the blocking tool waits for: started is closed when
// the first call of it starts, release lets every call return.
type blocker struct {
	started, release chan struct{}
	once, freed      sync.Once
}

var (
	sharedOnce sync.Once
	shared     *concurrency
	sharedErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.close()
	}
	os.Exit(code)
}

// sharedServer returns the shared server, started on first use.
func sharedServer(t *testing.T) *concurrency {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = startConcurrency() })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func startConcurrency() (*concurrency, error) {
	gopls, err := goplsForTests()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "goplsmcp-concurrency-")
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	cs := &concurrency{root: filepath.Join(dir, "ws"), trace: filepath.Join(dir, "trace")}
	fail := func(err error) (*concurrency, error) {
		cs.close()
		os.RemoveAll(dir)
		return nil, err
	}
	if err := os.CopyFS(cs.root, os.DirFS("../testdata/example")); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs.lsp, err = lspclient.Start(ctx, lspclient.Options{
		Gopls: gopls, Root: cs.root,
		Args: []string{"-rpc.trace", "-logfile=" + cs.trace},
	})
	if err != nil {
		return fail(err)
	}
	br, err := bridge.New(bridge.Config{Root: cs.root, Client: cs.lsp})
	if err != nil {
		return fail(err)
	}
	cs.srv = mcp.NewServer("goplsmcp", "test", &mcp.Options{MaxInFlight: 1})
	if err := br.Register(cs.srv); err != nil {
		return fail(err)
	}
	err = mcp.AddTool(cs.srv, mcp.Tool{Name: "test_block", Title: "Block", Description: "Holds the session's handler slot until the test releases it.", Annotations: &mcp.ToolAnnotations{}},
		func(ctx context.Context, in *struct{}) (*struct{}, error) {
			cs.blockMu.Lock()
			b := cs.block
			cs.blockMu.Unlock()
			b.once.Do(func() { close(b.started) })
			select {
			case <-b.release:
			case <-ctx.Done():
			}
			return &struct{}{}, nil
		})
	if err != nil {
		return fail(err)
	}
	if cs.http, err = cs.srv.NewHTTPHandler(&mcp.HTTPOptions{Token: httpToken}); err != nil {
		return fail(err)
	}
	cs.httpSrv = httptest.NewServer(cs.http)
	cs.url = cs.httpSrv.URL + mcp.HTTPPath
	// The workspace is loaded before the first run, so that no run waits
	// for it.
	if err := cs.lsp.WaitLoaded(ctx); err != nil {
		return fail(err)
	}
	return cs, nil
}

func (cs *concurrency) close() {
	if cs.http != nil {
		cs.http.Close()
		cs.httpSrv.Close()
	}
	if cs.lsp != nil {
		cs.lsp.Close()
	}
	os.RemoveAll(filepath.Dir(cs.root))
}

// arm readies the blocking tool: the calls made from now on wait until
// release is called.
func (cs *concurrency) arm() (started <-chan struct{}, release func()) {
	b := &blocker{started: make(chan struct{}), release: make(chan struct{})}
	cs.blockMu.Lock()
	cs.block = b
	cs.blockMu.Unlock()
	return b.started, func() { b.freed.Do(func() { close(b.release) }) }
}

// traceSize is where the RPC trace ends now.
func (cs *concurrency) traceSize(t *testing.T) int64 {
	t.Helper()
	fi, err := os.Stat(cs.trace)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// An rpcEvent is one message in gopls's RPC trace.
type rpcEvent struct {
	kind   string // request, response or notification
	method string
	id     string // of a request or response
	body   string // the params or result, as traced
}

var traceHeader = regexp.MustCompile(`^\S+ \S+\] \w+ (request|response|notification) '([^']*?)(?: - \((\d+)\))?'`)

// traceFrom returns the messages of the RPC trace from offset on, in the
// order gopls read or wrote them.
func (cs *concurrency) traceFrom(t *testing.T, offset int64) []rpcEvent {
	t.Helper()
	data, err := os.ReadFile(cs.trace)
	if err != nil {
		t.Fatal(err)
	}
	var out []rpcEvent
	for entry := range strings.SplitSeq(string(data[offset:]), "[Trace - ") {
		header, body, _ := strings.Cut(entry, "\n")
		m := traceHeader.FindStringSubmatch(header)
		if m == nil {
			continue
		}
		out = append(out, rpcEvent{kind: m[1], method: m[2], id: m[3], body: body})
	}
	return out
}

// pipes starts a stdio session of the shared server and returns its ends.
func (cs *concurrency) pipes(t *testing.T) (in *io.PipeWriter, out *io.PipeReader, served <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cs.srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	return inW, outR, done
}

// session is an initialized client session over stdio, ended with the
// test.
func (cs *concurrency) session(t *testing.T) *mcp.Client {
	t.Helper()
	in, out, served := cs.pipes(t)
	t.Cleanup(func() {
		in.Close()
		if err := <-served; err != nil {
			t.Errorf("serving: %v", err)
		}
	})
	c := mcp.NewClient(out, in)
	if _, err := c.Initialize(testCtx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	return c
}

// rawSession is a stdio session driven line by line, which sees every
// message the server writes.
type rawSession struct {
	in     *io.PipeWriter
	lines  chan string
	served <-chan error
}

func (cs *concurrency) rawSession(t *testing.T) *rawSession {
	t.Helper()
	in, out, served := cs.pipes(t)
	rs := &rawSession{in: in, lines: make(chan string, 100), served: served}
	go func() {
		defer close(rs.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			rs.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { in.Close() })
	rs.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	rs.await(t, `"init"`)
	rs.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return rs
}

func (rs *rawSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(rs.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// await returns the response to id (its JSON), skipping notifications; a
// response to another id fails the test.
func (rs *rawSession) await(t *testing.T, id string) json.RawMessage {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line, ok := <-rs.lines:
			if !ok {
				t.Fatalf("the session ended before answering %s", id)
			}
			var m struct {
				ID     json.RawMessage
				Method string
				Result json.RawMessage
				Error  json.RawMessage
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			if m.Method != "" {
				continue
			}
			if string(m.ID) != id {
				t.Fatalf("got %.300s, want the answer to %s", line, id)
			}
			if m.Error != nil {
				t.Fatalf("%s: %s", id, m.Error)
			}
			return m.Result
		case <-timeout:
			t.Fatalf("no answer to %s within a minute", id)
		}
	}
}

// end closes the session's input and returns, once it has ended, the
// responses it wrote that were not awaited.
func (rs *rawSession) end(t *testing.T) []string {
	t.Helper()
	rs.in.Close()
	var rest []string
	for line := range rs.lines {
		if !strings.Contains(line, `"method":`) {
			rest = append(rest, line)
		}
	}
	if err := <-rs.served; err != nil {
		t.Errorf("serving: %v", err)
	}
	return rest
}

// rawHTTP is a Streamable HTTP session driven with raw bodies.
type rawHTTP struct {
	url, session, version string
}

func (cs *concurrency) rawHTTP(t *testing.T) *rawHTTP {
	t.Helper()
	p := &rawHTTP{url: cs.url}
	status, hdr, msgs := p.post(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if status != http.StatusOK || len(msgs) != 1 {
		t.Fatalf("initialize: %d %q", status, msgs)
	}
	p.session, p.version = hdr.Get("Mcp-Session-Id"), "2025-11-25"
	if status, _, _ := p.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", status)
	}
	t.Cleanup(func() { p.do(t, http.MethodDelete, "") })
	return p
}

// rawClient bounds every exchange of a rawHTTP session.
var rawClient = &http.Client{Timeout: 2 * time.Minute}

// post sends one message and returns the status and the messages of the
// answer, JSON or event stream.
func (p *rawHTTP) post(t *testing.T, body string) (int, http.Header, []string) {
	t.Helper()
	return p.do(t, http.MethodPost, body)
}

func (p *rawHTTP) do(t *testing.T, method, body string) (int, http.Header, []string) {
	t.Helper()
	req, err := http.NewRequest(method, p.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+httpToken)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
		req.Header.Set("MCP-Protocol-Version", p.version)
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Errorf("%s: %v", method, err)
		return 0, nil, nil
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("%s: %v", method, err)
	}
	var msgs []string
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && !strings.Contains(d, `"method":`) {
				msgs = append(msgs, d)
			}
		}
	} else if len(data) > 0 {
		msgs = append(msgs, string(data))
	}
	return resp.StatusCode, resp.Header, msgs
}

// result returns the result of a JSON-RPC response.
func result(t *testing.T, msg string) json.RawMessage {
	t.Helper()
	var m struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal([]byte(msg), &m); err != nil || m.Error != nil {
		t.Fatalf("not a result: %.300s (%v)", msg, err)
	}
	return m.Result
}

// TestNewPackagesLoadApart makes 32 new package directories appear, as a
// branch switch does, while two sessions call: one asks about a file gopls
// knows, which must reach gopls before gopls has loaded the new packages
// (gopls's RPC trace shows the order; no timer is involved); the other
// searches the workspace, which must wait for those loads, and finds a
// symbol declared in a new package.
func TestNewPackagesLoadApart(t *testing.T) {
	cs := sharedServer(t)
	run := cs.runs.Add(1)
	a, b := cs.session(t), cs.session(t)
	ctx := testCtx(t)
	describe := map[string]any{"file": "main.go", "line": 13, "column": 23}
	atRest, err := a.CallTool(ctx, "go_describe", describe)
	if err != nil || atRest.IsError {
		t.Fatalf("go_describe at rest: %v %v", atRest, err)
	}

	mark := cs.traceSize(t)
	dir := fmt.Sprintf("fresh%d", run)
	t.Cleanup(func() { os.RemoveAll(filepath.Join(cs.root, dir)) })
	const packages = 32
	for i := range packages {
		writeTestFile(t, filepath.Join(cs.root, dir, fmt.Sprintf("p%d", i), "p.go"),
			fmt.Sprintf("package p%d\n\n// Fresh%dx%d is declared in a new package.\nfunc Fresh%dx%d() {}\n", i, run, i, run, i))
	}
	wanted := fmt.Sprintf("Fresh%dx%d", run, packages/2)
	var (
		wg        sync.WaitGroup
		described *mcp.ToolResultJSON
		searched  *mcp.ToolResultJSON
		errA      error
		errB      error
	)
	wg.Go(func() { described, errA = a.CallTool(ctx, "go_describe", describe) })
	wg.Go(func() { searched, errB = b.CallTool(ctx, "go_search", map[string]any{"query": wanted}) })
	wg.Wait()
	if errA != nil || described.IsError || described.Text() != atRest.Text() {
		t.Errorf("go_describe while new packages load = %v, %v; want its answer at rest:\n%s", described, errA, atRest.Text())
	}
	wantFile := fmt.Sprintf("%s/p%d/p.go", dir, packages/2)
	if errB != nil || searched.IsError || !strings.Contains(searched.Text(), wanted) || !strings.Contains(searched.Text(), wantFile) {
		t.Errorf("go_search %q after new packages appeared = %v, %v; want %s in %s", wanted, searched, errB, wanted, wantFile)
	}

	// The order in which gopls saw the requests.
	unrelated, lastLoad, search := -1, -1, -1
	loads := map[string]bool{}
	for i, ev := range cs.traceFrom(t, mark) {
		switch {
		case ev.kind == "request" && strings.Contains(ev.body, "/"+dir+"/"):
			// gopls loads a package when a request needs it.
			loads[ev.id] = true
		case ev.kind == "response" && loads[ev.id]:
			lastLoad = i
		case ev.kind == "request" && ev.method == "textDocument/hover" && strings.Contains(ev.body, "/main.go\"") && unrelated < 0:
			unrelated = i
		case ev.kind == "request" && ev.method == "workspace/symbol" && strings.Contains(ev.body, wanted) && search < 0:
			search = i
		}
	}
	if len(loads) != packages {
		t.Fatalf("gopls was asked to load %d new packages, want %d", len(loads), packages)
	}
	if unrelated < 0 || search < 0 {
		t.Fatalf("the trace lacks the calls' requests: hover of main.go at %d, symbol search at %d", unrelated, search)
	}
	t.Logf("trace entries: hover of main.go %d, last load answered %d, symbol search %d", unrelated, lastLoad, search)
	if unrelated > lastLoad {
		t.Errorf("the hover of main.go reached gopls after the new packages had loaded (trace entries %d, %d): it waited for them", unrelated, lastLoad)
	}
	if search < lastLoad {
		t.Errorf("the symbol search reached gopls before the new packages had loaded (trace entries %d, %d): it did not wait for them", search, lastLoad)
	}
}

// writeTestFile writes a file, making its directory.
func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cancelledCall is a go_describe that no other call of these tests makes,
// so that its request is found in the trace by its position.
func cancelledCall(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"go_describe","arguments":{"file":"shapes/shapes.go","line":31,"column":17}}}`
}

// hoversAtCancelled counts the hover requests at cancelledCall's position,
// as the LSP wire carries it to gopls (0-based, UTF-16; the line is ASCII).
func hoversAtCancelled(events []rpcEvent) int {
	n := 0
	for _, ev := range events {
		if ev.kind == "request" && ev.method == "textDocument/hover" &&
			strings.Contains(ev.body, "/shapes/shapes.go\"") && strings.Contains(ev.body, `"line":30`) && strings.Contains(ev.body, `"character":16`) {
			n++
		}
	}
	return n
}

// TestCancelQueuedNeverRuns cancels a request while it waits behind the
// session's concurrency bound, over stdio (waiting for a handler slot) and
// over HTTP (waiting for a place among the pending requests): it gets no
// response, and gopls's RPC trace shows no request for it. The same call
// made afterwards, not cancelled, shows in the trace: the check can see
// it.
func TestCancelQueuedNeverRuns(t *testing.T) {
	cs := sharedServer(t)
	mark := cs.traceSize(t)

	t.Run("stdio", func(t *testing.T) {
		rs := cs.rawSession(t)
		started, release := cs.arm()
		defer release()
		rs.send(t, `{"jsonrpc":"2.0","id":"block","method":"tools/call","params":{"name":"test_block","arguments":{}}}`)
		waitClosed(t, started, "the blocking call to start")
		rs.send(t, cancelledCall(`"queued"`))
		rs.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"queued"}}`)
		// Lines are handled in order, and ping at once: its answer means
		// the cancellation has been handled.
		rs.send(t, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		rs.await(t, `"after"`)
		release()
		rs.await(t, `"block"`)
		if rest := rs.end(t); len(rest) > 0 {
			t.Errorf("the cancelled call was answered: %q", rest)
		}
	})

	t.Run("http", func(t *testing.T) {
		p := cs.rawHTTP(t)
		var wg sync.WaitGroup
		defer wg.Wait()
		started, release := cs.arm()
		defer release()
		// One call holds the handler slot and seven wait for it, which
		// fills the pending places: MaxInFlight is 1, and up to eight
		// times as many calls may be pending. The next waits for a place.
		block := func(i int) {
			p.post(t, `{"jsonrpc":"2.0","id":"block`+strconv.Itoa(i)+`","method":"tools/call","params":{"name":"test_block","arguments":{}}}`)
		}
		wg.Go(func() { block(0) })
		waitClosed(t, started, "the blocking call to start")
		for i := range 7 {
			wg.Go(func() { block(i + 1) })
		}
		answered := make(chan []string, 1)
		go func() {
			_, _, msgs := p.post(t, cancelledCall(`"queued"`))
			answered <- msgs
		}()
		// The cancellation may come before the request is known, and be
		// ignored as the protocol says: it is sent until the request's
		// POST ends, which it does once the cancellation took, while the
		// handler slot is still held.
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(30 * time.Second)
		for {
			p.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"queued"}}`)
			select {
			case msgs := <-answered:
				if len(msgs) > 0 {
					t.Errorf("the cancelled call was answered: %q", msgs)
				}
				release()
				return
			case <-deadline:
				t.Fatal("the call cancelled while queued was not let go while the handler slot was held")
			case <-tick.C:
			}
		}
	})

	if n := hoversAtCancelled(cs.traceFrom(t, mark)); n != 0 {
		t.Errorf("gopls got %d requests for the cancelled calls", n)
	}
	// Not cancelled, the same call reaches gopls.
	rs := cs.rawSession(t)
	rs.send(t, cancelledCall(`"control"`))
	rs.await(t, `"control"`)
	if n := hoversAtCancelled(cs.traceFrom(t, mark)); n != 1 {
		t.Errorf("the call not cancelled shows %d times in gopls's trace, want once", n)
	}
}

// TestEscapedOverlay sends unsaved text with the key spelled with a JSON
// escape ("\u0074ext" is "text"), over stdio and over HTTP: the answer is
// the same as with the plain key, an answer about the unsaved text.
func TestEscapedOverlay(t *testing.T) {
	cs := sharedServer(t)
	data, err := os.ReadFile(filepath.Join(cs.root, "broken", "broken.go"))
	if err != nil {
		t.Fatal(err)
	}
	unsaved := strings.Replace(string(data), `H: "1"`, `H: true`, 1)
	quoted, _ := json.Marshal(unsaved)
	call := func(id, key string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"go_diagnostics","arguments":{"file":"broken/broken.go","` + key + `":` + string(quoted) + `}}}`
	}
	const unsavedError = "cannot use true (untyped bool constant) as float64 value"
	compare := func(t *testing.T, escaped, plain json.RawMessage) {
		t.Helper()
		var e, p struct {
			Content []struct{ Text string }
			IsError bool
		}
		if err := json.Unmarshal(escaped, &e); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(plain, &p); err != nil {
			t.Fatal(err)
		}
		if p.IsError || len(p.Content) == 0 || !strings.Contains(p.Content[0].Text, unsavedError) {
			t.Fatalf("the plain call's answer is not about the unsaved text: %s", plain)
		}
		var ev, pv any
		_ = json.Unmarshal(escaped, &ev)
		_ = json.Unmarshal(plain, &pv)
		if diff := cmp.Diff(pv, ev); diff != "" {
			t.Errorf("escaped key against plain key (-plain +escaped):\n%s", diff)
		}
	}

	t.Run("stdio", func(t *testing.T) {
		rs := cs.rawSession(t)
		rs.send(t, call("escaped", `\u0074ext`))
		escaped := rs.await(t, `"escaped"`)
		rs.send(t, call("plain", "text"))
		compare(t, escaped, rs.await(t, `"plain"`))
	})
	t.Run("http", func(t *testing.T) {
		p := cs.rawHTTP(t)
		_, _, e := p.post(t, call("escaped", `\u0074ext`))
		_, _, pl := p.post(t, call("plain", "text"))
		if len(e) != 1 || len(pl) != 1 {
			t.Fatalf("answers: %q, %q", e, pl)
		}
		compare(t, result(t, e[0]), result(t, pl[0]))
	})
}
