package lspclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// An editor is an LSP client (a text editor) served by the client's gopls
// beside the client's own calls (docs/editors.md). It never starts, stops
// or initializes gopls: its initialize is answered from gopls's own
// answer, its shutdown and exit end only its connection. Its requests go
// to gopls as the client's own calls do (with the same retry on a
// restart, their progress tokens made unique); its open documents are
// documents of the client (replayed to a new gopls with the rest); what
// gopls publishes goes to it while gopls holds the editor's view (see
// [EditorGate.InView]); and the requests gopls makes of its client while
// one of the editor's commands runs (an edit to apply, a document to
// show) go to it.

// An EditorGate is how an editor takes its turn on gopls with the other
// users of the client (agents' calls with unsaved text of their own).
type EditorGate interface {
	// Enter waits until the editor's request (change false) or a change
	// to its documents (change true) may reach gopls, and returns the
	// function that ends it.
	Enter(ctx context.Context, change bool) (leave func(), err error)
	// TryEnter is Enter when it need not wait; ok is false, and nothing
	// entered, when it would.
	TryEnter(change bool) (leave func(), ok bool)
	// Buffer records what the editor holds of uri: its text, whether it
	// differs from the file on disk (dirty), or that it closed it.
	// It is called under Enter(ctx, true).
	Buffer(uri, text string, dirty, closed bool)
	// InView reports whether gopls holds the editor's view now: its
	// buffers, and no unsaved text of anyone else, so that what gopls
	// publishes is about what the editor shows.
	InView() bool
}

// EditorOptions configure [Client.ServeEditor].
type EditorOptions struct {
	// Gate, if set, is where the editor takes its turn; nil: the editor
	// has gopls to itself, always in view.
	Gate EditorGate
	// Logger receives the connection's log; nil is the client's.
	Logger *slog.Logger
	// Private are directories whose files are others' unsaved text (the
	// agents' snippets): diagnostics of their files, and messages that
	// name them, never reach the editor.
	Private []string
	// Observe, if set, is given what a relay keeps to restore the editor
	// on another server: each of the editor's messages of a method
	// [Kept] reports, in the order they came, on the connection's reading
	// goroutine; each of its requests still unanswered after a quarter
	// to half a second, and then its end. Each is given with its method,
	// as the JSON the editor would send. It must not block for long, and
	// it may be called from several goroutines. A server given the
	// editor's stdio itself ([RelayOptions.Hand]) reports them to the
	// relay that stands by with a [Reporter].
	Observe func(method string, body []byte)
}

type editorDoc struct {
	text    string
	version int32
	dirty   bool
}

type editor struct {
	c       *Client
	id      int64
	conn    jsonrpc2.Conn
	gate    EditorGate
	log     *slog.Logger
	private []string
	observe func(string, []byte)

	mu       sync.Mutex
	docs     map[string]*editorDoc
	inflight map[string]*editorCall     // by the editor's request id
	tokens   map[string]json.RawMessage // our progress token -> the editor's
	commands int                        // executeCommand requests running
	tokenSeq int64
	shutdown bool
	outbox   []editorNote // notifications to write, in order
	wake     chan struct{}

	work chan func() // the editor's messages, in order
	// backlog counts the messages handed to the worker and not yet done.
	backlog atomic.Int64
	wg      sync.WaitGroup
}

var editorSeq atomic.Int64

// An editorSet is the editors of a client, which gopls's messages may
// reach.
type editorSet struct {
	mu   sync.Mutex
	list []*editor
}

// ServeEditor serves one editor's LSP connection on rwc (Content-Length
// framed JSON-RPC, as gopls speaks on stdio) until the editor exits or
// rwc ends, then closes what the editor had open. See docs/editors.md.
func (c *Client) ServeEditor(ctx context.Context, rwc io.ReadWriteCloser, opts EditorOptions) error {
	e := &editor{c: c, id: editorSeq.Add(1), gate: opts.Gate, log: opts.Logger, private: opts.Private, observe: opts.Observe,
		docs: map[string]*editorDoc{}, inflight: map[string]*editorCall{}, tokens: map[string]json.RawMessage{},
		work: make(chan func(), 256), wake: make(chan struct{}, 1)}
	if e.log == nil {
		e.log = c.log
	}
	e.log = e.log.With("editor", e.id)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.conn = jsonrpc2.NewConn(newEditorStream(rwc))
	c.editors.mu.Lock()
	c.editors.list = append(c.editors.list, e)
	c.editors.mu.Unlock()
	defer func() {
		c.editors.mu.Lock()
		for i, x := range c.editors.list {
			if x == e {
				c.editors.list = append(c.editors.list[:i], c.editors.list[i+1:]...)
				break
			}
		}
		c.editors.mu.Unlock()
	}()
	e.wg.Go(func() {
		for {
			select {
			case fn := <-e.work:
				fn()
			case <-ctx.Done():
				return
			}
		}
	})
	e.conn.Go(ctx, e.handle)
	e.wg.Go(func() { e.writeNotes(ctx) })
	if e.gate != nil || e.observe != nil {
		e.wg.Go(func() { e.tick(ctx) })
	}
	var why error // the editor's stream failed
	select {
	case <-e.conn.Done():
		if err := e.conn.Err(); !errors.Is(err, io.EOF) {
			why = err
		}
	case <-ctx.Done():
	case <-c.life.Done():
	}
	e.conn.Close()
	cancel()
	// The reader may start a request's goroutine (handle) until it ends.
	<-e.conn.Done()
	e.mu.Lock()
	for _, call := range e.inflight {
		call.stop()
	}
	e.mu.Unlock()
	e.wg.Wait()
	e.closeAll()
	if why != nil {
		e.log.Info("editor connection ended", "error", why)
	} else {
		e.log.Info("editor connection ended")
	}
	return nil
}

// closeAll closes the documents the editor left open: gopls reads them
// from disk again, and agents see the files as saved.
func (e *editor) closeAll() {
	ctx, cancel := context.WithTimeout(context.Background(), e.c.opts.Timeout)
	defer cancel()
	e.mu.Lock()
	docs := e.docs
	e.docs = map[string]*editorDoc{}
	e.mu.Unlock()
	if len(docs) == 0 {
		return
	}
	leave, err := e.enter(ctx, true)
	if err != nil {
		e.log.Warn("closing the editor's documents", "error", err)
		return
	}
	defer leave()
	for uri := range docs {
		if _, err := e.c.CloseDocument(ctx, uri); err != nil {
			e.log.Warn("closing an editor's document", "uri", uri, "error", err)
		}
		if e.gate != nil {
			e.gate.Buffer(uri, "", false, true)
		}
	}
}

// viewCheck is how often an editor that does not ask anything checks
// that gopls holds its view, and reports its slow requests.
const viewCheck = 250 * time.Millisecond

// tick brings gopls back to the editor's view once others' calls have
// taken it away (an agent's call that needed the files on disk, or its
// own unsaved text): what gopls publishes then is about what the editor
// shows, even while the editor asks nothing. And it reports the editor's
// slow requests (reportSlow).
func (e *editor) tick(ctx context.Context) {
	tick := time.NewTicker(viewCheck)
	defer tick.Stop()
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-tick.C:
		}
		if e.observe != nil {
			e.reportSlow(now)
		}
		if e.gate == nil || e.gate.InView() {
			continue
		}
		if leave, err := e.gate.Enter(ctx, false); err == nil {
			leave()
		}
	}
}

func (e *editor) enter(ctx context.Context, change bool) (func(), error) {
	if e.gate == nil {
		return func() {}, nil
	}
	return e.gate.Enter(ctx, change)
}

func (e *editor) inView() bool { return e.gate == nil || e.gate.InView() }

// handle runs on the connection's reading goroutine: cancellations act at
// once, everything else is done in order by the worker.
func (e *editor) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if e.observe != nil && Kept(req.Method()) {
		if body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": req.Method(), "params": req.Params()}); err == nil {
			e.observe(req.Method(), body)
		}
	}
	if req.Method() == "$/cancelRequest" {
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			e.mu.Lock()
			call := e.inflight[string(p.ID)]
			e.mu.Unlock()
			if call != nil {
				call.stop()
			}
		}
		return nil
	}
	var id string
	if call, ok := req.(*jsonrpc2.Call); ok {
		// jsonrpc2.ID marshals only through a pointer (a value gives
		// "{}", the same for every request).
		cid := call.ID()
		raw, _ := json.Marshal(&cid)
		id = string(raw)
	}
	reqCtx, stop := context.WithCancel(ctx)
	var call *editorCall
	if id != "" {
		call = &editorCall{id: id, stop: stop, req: req, start: time.Now()}
		e.mu.Lock()
		e.inflight[id] = call
		e.mu.Unlock()
	}
	done := func() {
		stop()
		if call == nil {
			return
		}
		e.mu.Lock()
		delete(e.inflight, id)
		reported := call.reported
		e.mu.Unlock()
		if reported {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": answeredMethod, "params": map[string]any{"id": json.RawMessage(id)}})
			e.observe(answeredMethod, body)
		}
	}
	if id != "" && !handledHere(req.Method()) && e.backlog.Load() == 0 {
		// Nothing of the editor's is before it, and the gate lets it in
		// at once: it goes to gopls from here. A hand-off to the worker
		// is a wake-up of another goroutine on the path of each of the
		// editor's requests, most of which take a millisecond.
		if leave, ok := e.tryEnter(); ok {
			e.wg.Go(func() {
				defer done()
				defer leave()
				e.forward(reqCtx, reply, req.Method(), req.Params())
			})
			return nil
		}
	}
	e.backlog.Add(1)
	select {
	case e.work <- func() {
		defer e.backlog.Add(-1)
		e.process(reqCtx, reply, req, id != "", done)
	}:
	case <-ctx.Done():
		e.backlog.Add(-1)
		done()
	}
	return nil
}

// An editorCall is one of the editor's requests in flight.
type editorCall struct {
	id       string // as JSON
	stop     context.CancelFunc
	req      jsonrpc2.Request
	start    time.Time
	reported bool // to [EditorOptions.Observe], under editor.mu
}

// reportSlow reports to [EditorOptions.Observe] the editor's requests
// in flight for a quarter of a second or more and not yet reported. It
// runs at the editor's tick, not on a timer of each request's: a timer
// earlier than any the daemon has wakes its network poller, another
// thread's wake-up on the path of every request.
func (e *editor) reportSlow(now time.Time) {
	e.mu.Lock()
	var slow []*editorCall
	for _, call := range e.inflight {
		if !call.reported && now.Sub(call.start) >= viewCheck {
			call.reported = true
			slow = append(slow, call)
		}
	}
	e.mu.Unlock()
	for _, call := range slow {
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(call.id), "method": call.req.Method(), "params": call.req.Params()})
		if err == nil {
			e.observe(call.req.Method(), body)
		}
	}
}

// handledHere reports whether the editor's message of method is handled
// by its connection (see process); the others, if requests, are sent to
// gopls as they are.
func handledHere(method string) bool {
	switch method {
	case "initialize", "initialized", "shutdown", "exit",
		"textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave":
		return true
	}
	return false
}

func (e *editor) tryEnter() (func(), bool) {
	if e.gate == nil {
		return func() {}, true
	}
	return e.gate.TryEnter(false)
}

// process handles one message of the editor, in the order it came.
// A request is answered on a goroutine of its own once it has entered
// the gate, so that a slow answer delays nothing after it.
func (e *editor) process(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request, isCall bool, done func()) {
	method, params := req.Method(), req.Params()
	if !handledHere(method) {
		if !isCall {
			// didChangeConfiguration, didChangeWatchedFiles, workspace
			// folders...: the daemon's settings and its own watch of the
			// disk stand (docs/editors.md).
			done()
			return
		}
		leave, err := e.enter(ctx, false)
		if err != nil {
			done()
			reply(ctx, nil, jsonrpc2.NewError(requestCancelled, err.Error()))
			return
		}
		e.wg.Go(func() {
			defer done()
			defer leave()
			e.forward(ctx, reply, method, params)
		})
		return
	}
	switch method {
	case "initialize":
		defer done()
		e.c.mu.Lock()
		caps := e.c.capabilities
		e.c.mu.Unlock()
		reply(ctx, map[string]any{
			"capabilities": caps,
			"serverInfo":   map[string]string{"name": "gopls", "version": e.c.Version()},
		}, nil)
		return
	case "initialized":
		defer done()
		e.sendPublished()
		return
	case "shutdown":
		defer done()
		e.mu.Lock()
		e.shutdown = true
		e.mu.Unlock()
		reply(ctx, nil, nil)
		return
	case "exit":
		done()
		e.conn.Close()
		return
	case "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave":
		defer done()
		if err := e.document(ctx, method, params); err != nil {
			e.log.Warn("an editor's document change", "method", method, "error", err)
		}
	}
}

// forward sends one of the editor's requests to gopls and answers it.
func (e *editor) forward(ctx context.Context, reply jsonrpc2.Replier, method string, params json.RawMessage) {
	params = e.ownTokens(params)
	if method == "workspace/executeCommand" {
		e.mu.Lock()
		e.commands++
		e.mu.Unlock()
		defer func() {
			e.mu.Lock()
			e.commands--
			e.mu.Unlock()
		}()
	}
	if e.names(params) {
		// About an agent's snippet: nothing the editor may see.
		reply(ctx, json.RawMessage("null"), nil)
		return
	}
	var res json.RawMessage
	// Ahead of agents' calls, unless it is a command (priority.go).
	err := e.c.Call(editorRequest(ctx, method), method, params, &res)
	var re *ResponseError
	switch {
	case err == nil:
		if len(res) == 0 {
			res = json.RawMessage("null")
		}
		reply(ctx, e.scrub(res), nil)
	case errors.As(err, &re):
		reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.Code(re.Code), re.Message))
	case ctx.Err() != nil:
		reply(ctx, nil, jsonrpc2.NewError(requestCancelled, "request cancelled"))
	default:
		reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error()))
	}
}

// ownTokens gives the request's work-done progress token a name of the
// editor's own, so that two editors' tokens never meet in gopls, and
// drops a partial-result token (partial results are not relayed).
func (e *editor) ownTokens(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"workDoneToken"`)) && !bytes.Contains(params, []byte(`"partialResultToken"`)) {
		return params
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	delete(m, "partialResultToken")
	if tok, ok := m["workDoneToken"]; ok {
		e.mu.Lock()
		e.tokenSeq++
		own := "goplsmcp-editor-" + strconv.FormatInt(e.id, 10) + "-" + strconv.FormatInt(e.tokenSeq, 10)
		raw, _ := json.Marshal(own)
		e.tokens[string(raw)] = tok
		e.mu.Unlock()
		m["workDoneToken"] = raw
	}
	out, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return out
}

// document applies one of the editor's document notifications.
func (e *editor) document(ctx context.Context, method string, params json.RawMessage) error {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int32  `json:"version"`
			Text    string `json:"text"`
		} `json:"textDocument"`
		ContentChanges json.RawMessage `json:"contentChanges"`
		Text           *string         `json:"text"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("reading %s: %w", method, err)
	}
	uri := p.TextDocument.URI
	// One spelling of each file's URI, the client's own, so that the
	// editor's buffers and agents' calls name a file alike.
	if path, err := URIPath(uri); err == nil {
		uri = FileURI(path)
	}
	e.mu.Lock()
	doc := e.docs[uri]
	e.mu.Unlock()
	var text string
	switch method {
	case "textDocument/didOpen":
		text = p.TextDocument.Text
	case "textDocument/didChange":
		if doc == nil {
			return fmt.Errorf("%s changed before it was opened", uri)
		}
		var err error
		if text, err = ApplyChanges(doc.text, p.ContentChanges); err != nil {
			return err
		}
	case "textDocument/didSave":
		if doc == nil {
			return nil
		}
		text = doc.text
		if p.Text != nil {
			text = *p.Text
		}
	case "textDocument/didClose":
	}
	leave, err := e.enter(context.WithoutCancel(ctx), true)
	if err != nil {
		return err
	}
	defer leave()
	if method == "textDocument/didClose" {
		e.mu.Lock()
		delete(e.docs, uri)
		e.mu.Unlock()
		if e.gate != nil {
			e.gate.Buffer(uri, "", false, true)
		}
		_, err := e.c.CloseDocument(ctx, uri)
		return err
	}
	dirty := !sameAsDisk(uri, text)
	version := p.TextDocument.Version
	if doc != nil && method == "textDocument/didSave" {
		version = doc.version
	}
	e.mu.Lock()
	e.docs[uri] = &editorDoc{text: text, version: version, dirty: dirty}
	e.mu.Unlock()
	if e.gate != nil {
		e.gate.Buffer(uri, text, dirty, false)
	}
	l, err := e.c.Hold(ctx, uri, text, dirty)
	if err != nil {
		return err
	}
	l.Release()
	return nil
}

// sameAsDisk reports whether text is the content of uri's file on disk.
func sameAsDisk(uri, text string) bool {
	path, err := URIPath(uri)
	if err != nil {
		return false
	}
	f, fi, err := OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi.Size() != int64(len(text)) {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(f, fi.Size()+1))
	return err == nil && string(data) == text
}

// sendPublished gives a new editor the diagnostics gopls published
// before it came, as gopls would have sent them to it.
func (e *editor) sendPublished() {
	if !e.inView() {
		return
	}
	for uri, diags := range e.c.PublishedDiagnostics() {
		e.notify("textDocument/publishDiagnostics", map[string]any{"uri": uri, "diagnostics": diags})
	}
}

func (e *editor) notify(method string, params any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shutdown {
		return
	}
	if len(e.outbox) >= maxOutbox {
		// An editor that stops reading loses its oldest notifications
		// rather than stall gopls's reader or grow without bound.
		e.outbox = e.outbox[1:]
	}
	e.outbox = append(e.outbox, editorNote{method, params})
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// maxOutbox bounds the notifications waiting to be written to an editor.
const maxOutbox = 4096

type editorNote struct {
	method string
	params any
}

// writeNotes writes the editor's notifications in the order gopls sent
// them, each write bounded by the client's timeout.
func (e *editor) writeNotes(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.wake:
		}
		for {
			e.mu.Lock()
			if len(e.outbox) == 0 {
				e.mu.Unlock()
				break
			}
			n := e.outbox[0]
			e.outbox = e.outbox[1:]
			e.mu.Unlock()
			wctx, cancel := context.WithTimeout(ctx, e.c.opts.Timeout)
			err := e.conn.Notify(wctx, n.method, n.params)
			cancel()
			if err != nil {
				e.log.Debug("notifying the editor", "method", n.method, "error", err)
			}
		}
	}
}

// fromGopls passes a notification of gopls's to the editors it concerns.
// It runs on the reading goroutine of gopls's connection: it never blocks.
func (s *editorSet) fromGopls(method string, params json.RawMessage) {
	s.mu.Lock()
	list := append([]*editor(nil), s.list...)
	s.mu.Unlock()
	for _, e := range list {
		switch method {
		case "$/progress":
			var p struct {
				Token json.RawMessage `json:"token"`
				Value json.RawMessage `json:"value"`
			}
			if json.Unmarshal(params, &p) != nil {
				continue
			}
			e.mu.Lock()
			tok, ok := e.tokens[string(p.Token)]
			if ok && bytes.Contains(p.Value, []byte(`"end"`)) {
				delete(e.tokens, string(p.Token))
			}
			e.mu.Unlock()
			if ok {
				e.notify(method, map[string]any{"token": tok, "value": p.Value})
			}
		case "textDocument/publishDiagnostics":
			if !e.inView() || e.names(params) {
				continue
			}
			// Versions are gopls's, which are not the editor's (a switch
			// of views changes them): none is said.
			var p map[string]json.RawMessage
			if json.Unmarshal(params, &p) != nil {
				continue
			}
			delete(p, "version")
			e.notify(method, p)
		case "window/showMessage", "window/logMessage":
			if e.inView() && !e.names(params) {
				e.notify(method, params)
			}
		}
	}
}

// names reports whether params name a file of a private directory: by
// its path, its URI, or, for one inside the root, its path from the root
// as package paths spell it (".../.goplsmcp/scratch/1").
func (e *editor) names(params json.RawMessage) bool {
	for _, dir := range e.private {
		if bytes.Contains(params, []byte(dir)) || bytes.Contains(params, []byte(FileURI(dir))) {
			return true
		}
		if rel, err := filepath.Rel(e.c.opts.Root, dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") &&
			bytes.Contains(params, []byte("/"+filepath.ToSlash(rel)+"/")) {
			return true
		}
	}
	return false
}

// scrub takes out of gopls's answer to one of the editor's requests
// whatever names an agent's snippet (a file of a private directory): the
// answers of every kind (symbols, references, call hierarchies, code
// actions and their edits, completion, hover) are lists of items, each
// naming its file, or objects keyed by file (a workspace edit's
// changes), so such items and keys are dropped; an answer that still
// names one (a lone location, say) is answered null. The snippets are
// in gopls's view, as packages of the module, whoever asks: the editor
// must not see them, nor their text.
func (e *editor) scrub(res json.RawMessage) json.RawMessage {
	if !e.names(res) {
		return res
	}
	dec := json.NewDecoder(bytes.NewReader(res))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return json.RawMessage("null")
	}
	out, err := json.Marshal(e.scrubValue(v))
	if err != nil || e.names(out) {
		return json.RawMessage("null")
	}
	return out
}

func (e *editor) scrubValue(v any) any {
	switch x := v.(type) {
	case []any:
		kept := x[:0]
		for _, el := range x {
			if raw, err := json.Marshal(el); err == nil && e.names(raw) {
				// A whole item about a snippet goes; one that only
				// holds such items (a code action's edit) keeps the
				// rest, unless nothing of it is left.
				if el = e.scrubValue(el); e.emptied(el) {
					continue
				}
				if raw, err := json.Marshal(el); err != nil || e.names(raw) {
					continue
				}
			}
			kept = append(kept, el)
		}
		return kept
	case map[string]any:
		for k, val := range x {
			if e.names(json.RawMessage(strconv.Quote(k))) {
				delete(x, k)
				continue
			}
			x[k] = e.scrubValue(val)
		}
		return x
	}
	return v
}

// emptied reports whether scrubbing left v an empty list or object.
func (e *editor) emptied(v any) bool {
	switch x := v.(type) {
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// toEditor passes a request gopls makes of its client to the editor one
// of whose commands runs, and reports whether it did: an edit to apply,
// a document to show, a question for the user come from the editor's own
// command. It never blocks.
func (s *editorSet) toEditor(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) bool {
	s.mu.Lock()
	var target *editor
	for _, e := range s.list {
		e.mu.Lock()
		if e.commands > 0 {
			target = e
		}
		e.mu.Unlock()
	}
	s.mu.Unlock()
	if target == nil {
		return false
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), target.c.opts.Timeout)
		defer cancel()
		var res json.RawMessage
		if _, err := target.conn.Call(ctx, req.Method(), req.Params(), &res); err != nil {
			reply(ctx, nil, err)
			return
		}
		reply(ctx, res, nil)
	}()
	return true
}

// EditorDirty reports whether an editor served by the client holds uri
// with unsaved changes (text that is not the file on disk). The file is
// compared by its path with every link resolved, on both sides: an editor
// that opened its workspace through a symbolic link names the file by
// the link, an apply by the resolved root, and an unsaved buffer must
// not be written over because the two spell it apart.
func (c *Client) EditorDirty(uri string) bool {
	var dirty []string
	c.editors.mu.Lock()
	for _, e := range c.editors.list {
		e.mu.Lock()
		for u, d := range e.docs {
			if d.dirty {
				dirty = append(dirty, u)
			}
		}
		e.mu.Unlock()
	}
	c.editors.mu.Unlock()
	if slices.Contains(dirty, uri) {
		return true
	}
	want := resolvedURIPath(uri)
	for _, u := range dirty {
		if want != "" && resolvedURIPath(u) == want {
			return true
		}
	}
	return false
}

// resolvedURIPath is the path uri names with every link resolved (its
// folder's, if the file itself is gone), or "" if uri names no file.
func resolvedURIPath(uri string) string {
	p, err := URIPath(uri)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return filepath.Clean(p)
}

// requestCancelled is LSP's error code for a request its client
// cancelled.
const requestCancelled jsonrpc2.Code = -32800

// EditorSettings are the gopls settings of a client started without
// Options.Settings: those an editor served by it gets, whatever it asks
// for (docs/editors.md).
func EditorSettings() map[string]any { return defaultSettings() }
