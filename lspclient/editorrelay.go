package lspclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	segjson "github.com/segmentio/encoding/json"
)

// RelayOptions configure [RelayEditor].
type RelayOptions struct {
	// Dial connects to the server of the editor's workspace (one that
	// serves it with [Client.ServeEditor]), starting it if need be; root
	// is the directory the editor's initialize names. It is called again
	// when the connection is lost.
	Dial func(ctx context.Context, root string) (io.ReadWriteCloser, error)
	// Hand, if set, gives the editor's stdio to the server itself, so
	// that the relay is off the path of every message: root as for Dial,
	// first the bytes read from the editor so far (its initialize), which
	// the server reads before the rest. The relay then stands by with
	// what [Handed.Control] reports, and takes the editor back
	// ([Handed.Resume]) to relay it to a new server if that one is lost.
	// An error leaves the stdio with the relay, which relays it.
	Hand func(ctx context.Context, root string, first []byte) (*Handed, error)
	// Logger receives the relay's log; nil discards it.
	Logger *slog.Logger
}

// Handed is an editor's stdio given to a server by [RelayOptions.Hand].
type Handed struct {
	// Control carries what the server's [Reporter] writes. Its end
	// before the Reporter says the editor ended is the server lost.
	Control io.ReadCloser
	// Resume returns the editor's stdio again, for the relay to serve.
	Resume func() (io.Reader, io.Writer, error)
}

// answeredMethod is the method of the message [EditorOptions.Observe] is
// given when an editor's request it was given unanswered has ended; its
// params are {"id": ID}.
const answeredMethod = "$/goplsmcp/answered"

// endedMethod is the method of the message a [Reporter] ends with when
// the editor has ended.
const endedMethod = "$/goplsmcp/editorEnded"

// A Reporter is the server's end of [Handed.Control]: it writes to the
// relay standing by what [EditorOptions.Observe] is given, and that the
// editor ended.
type Reporter struct {
	w      io.Writer
	mu     sync.Mutex
	buf    []byte
	err    error
	exited bool
}

// NewReporter returns a Reporter writing to w. If w has write deadlines
// (a net.Conn), each report must be written within the client's
// timeout for a stuck relay (reportTimeout): the editor's messages are
// read meanwhile.
func NewReporter(w io.Writer) *Reporter { return &Reporter{w: w} }

// reportTimeout bounds each write of a [Reporter].
const reportTimeout = 30 * time.Second

// Observe reports one message; it is an [EditorOptions.Observe]. After a
// failed write it reports nothing more: the relay could restore the
// editor only with what it had.
func (r *Reporter) Observe(method string, body []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if method == "exit" {
		r.exited = true
	}
	if r.err != nil {
		return
	}
	if d, ok := r.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		d.SetWriteDeadline(time.Now().Add(reportTimeout))
	}
	_, r.err = writeMessage(r.w, &r.buf, body)
}

// End reports that the editor ended if it did — it exited, or inputEnded
// (its input closed) — so that the relay goes too; otherwise the server
// is going, and the relay, hearing nothing, takes the editor to the
// next. It returns the first failed write, if any.
func (r *Reporter) End(inputEnded bool) error {
	r.mu.Lock()
	ended := inputEnded || r.exited
	r.mu.Unlock()
	if ended {
		r.Observe(endedMethod, []byte(`{"jsonrpc":"2.0","method":"`+endedMethod+`"}`))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Kept reports whether an editor's message of method is one a relay
// keeps to restore the editor on a new server: its document
// notifications, that it initialized, and its exit.
func Kept(method string) bool {
	switch method {
	case "initialized", "exit", "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose":
		return true
	}
	return false
}

// RelayEditor serves an editor's LSP session on in and out (its stdio)
// by relaying it to a server reached through opts.Dial. It keeps what a
// new server must be given when the connection is lost — the editor's
// initialize and its open documents with their current text — so that a
// server that dies is replaced under the editor without a buffer lost:
// the relay dials again, initializes the new server, opens the documents
// again and sends again the requests that were unanswered (a command,
// which may have changed something, is answered with an error instead).
// With opts.Hand it relays nothing while it can help it: the editor's
// stdio is handed to the server after its initialize, and the relay
// keeps what the server reports until that server is lost. It returns
// when the editor has exited or in ends.
func RelayEditor(ctx context.Context, in io.Reader, out io.Writer, opts RelayOptions) error {
	r := &relay{opts: opts, out: out, docs: map[string]*relayDoc{}, pending: map[string]relayMsg{}, serverCalls: map[string]int{}}
	if r.opts.Logger == nil {
		r.opts.Logger = slog.New(slog.DiscardHandler)
	}
	br := bufio.NewReader(in)
	if r.opts.Hand == nil {
		return r.run(ctx, br, false)
	}
	body, err := readMessage(br, nil)
	if err != nil {
		if err == io.EOF {
			return nil
		}
		return err
	}
	var m relayMsg
	if json.Unmarshal(body, &m) != nil || m.Method != "initialize" {
		// Not an editor this relay knows how to hand over: relayed.
		return r.run(ctx, replayed(body, br, in), false)
	}
	m.raw = body
	// What the editor sent after its initialize, if anything, is the
	// server's to read as well.
	rest, _ := br.Peek(br.Buffered())
	first := frame(nil, body)
	first = append(first, rest...)
	h, err := r.opts.Hand(ctx, rootOf(m.Params), first)
	if err != nil {
		r.opts.Logger.Info("relaying the editor: its stdio could not be handed to the server", "error", err)
		return r.run(ctx, replayed(body, br, in), false)
	}
	r.record(m)
	return r.standBy(ctx, h)
}

// replayed reads body, framed, then what br holds and in has.
func replayed(body []byte, br *bufio.Reader, in io.Reader) *bufio.Reader {
	rest, _ := br.Peek(br.Buffered())
	return bufio.NewReader(io.MultiReader(bytes.NewReader(frame(nil, body)), bytes.NewReader(slices.Clone(rest)), in))
}

// standBy keeps what the server given the editor reports, until the
// editor ends; if the server is lost first, the relay takes the editor
// back, gives a new server the editor's documents, and relays.
func (r *relay) standBy(ctx context.Context, h *Handed) error {
	ended := make(chan error, 1)
	go func() {
		br := bufio.NewReader(h.Control)
		for {
			body, err := readMessage(br, nil)
			if err != nil {
				ended <- err
				return
			}
			var m relayMsg
			if json.Unmarshal(body, &m) != nil {
				continue
			}
			if m.Method == endedMethod {
				ended <- nil
				return
			}
			m.raw = body
			if m.Method != "" && m.ID != nil {
				r.opts.Logger.Debug("the server reports a request of the editor's unanswered", "method", m.Method)
			}
			r.record(m)
		}
	}()
	var err error
	select {
	case <-ctx.Done():
		h.Control.Close()
		<-ended
		return nil
	case err = <-ended:
		h.Control.Close()
	}
	r.mu.Lock()
	exited := r.exited
	r.mu.Unlock()
	if err == nil || exited {
		return nil
	}
	in, out, rerr := h.Resume()
	if rerr != nil {
		return fmt.Errorf("taking the editor back from a lost server: %w", rerr)
	}
	r.opts.Logger.Warn("lost the server the editor was handed to; relaying it to a new one with its documents", "error", err)
	r.outMu.Lock()
	r.out = out
	r.outMu.Unlock()
	return r.run(ctx, bufio.NewReader(in), true)
}

// skipToHeader discards what br has before the start of a message
// header.
func skipToHeader(br *bufio.Reader) error {
	const header = "content-length:"
	for {
		b, err := br.Peek(len(header))
		if err != nil {
			return err
		}
		if strings.EqualFold(string(b), header) {
			return nil
		}
		br.Discard(1)
	}
}

type relayDoc struct {
	languageID string
	version    int32
	text       string
}

type relayMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	raw    []byte
}

type relay struct {
	opts   RelayOptions
	outMu  sync.Mutex
	out    io.Writer
	outBuf []byte // the frame being written to the editor, under outMu
	// connBuf is the frame being written to the server; it is used only
	// under run's serial lock, which every write to the server holds.
	connBuf []byte

	mu          sync.Mutex
	root        string
	initParams  json.RawMessage
	docs        map[string]*relayDoc
	pending     map[string]relayMsg // the editor's requests unanswered, by id
	order       []string
	serverCalls map[string]int // the server's requests to the editor, by id: the connection they came on
	gen         int
	conn        io.ReadWriteCloser
	exited      bool
}

// readMessage reads one Content-Length framed message into buf (grown
// as need be) and returns it; buf may be nil, and a caller that keeps the
// message passes nil.
func readMessage(br *bufio.Reader, buf []byte) ([]byte, error) {
	length := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", v)
			}
		}
	}
	if length < 0 {
		return nil, errors.New("a message without Content-Length")
	}
	body := slices.Grow(buf[:0], length)[:length]
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, err
	}
	return body, nil
}

// keptFrame is the largest buffer a reader or writer keeps between
// messages: a rare answer of megabytes is not held for the session.
const keptFrame = 1 << 20

// writeMessage frames body into *buf and writes it in one write, so that
// the peer wakes once for it; *buf is kept for the next message. A
// large answer (a completion list, the references of a common name) is
// copied into a buffer already there rather than allocated again and
// collected on every message. It returns the bytes written.
func writeMessage(w io.Writer, buf *[]byte, body []byte) (int, error) {
	b := frame((*buf)[:0], body)
	n, err := w.Write(b)
	if cap(b) > keptFrame {
		b = nil
	}
	*buf = b
	return n, err
}

// frame appends body, framed as an LSP message, to b.
func frame(b, body []byte) []byte {
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}

func (r *relay) toEditor(body []byte) error {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	_, err := writeMessage(r.out, &r.outBuf, body)
	return err
}

// internalID marks the relay's own initialize to a new server.
const internalID = `"goplsmcp-relay-init"`

// run relays the editor's messages from in; restore: the editor was
// served elsewhere until now (see standBy), and a new server is given what
// the relay kept of it first.
func (r *relay) run(ctx context.Context, in *bufio.Reader, restore bool) error {
	// The editor's messages are handled where they are read, not handed
	// to another goroutine: on two busy cores each hand-off is a wake-up
	// that costs the editor about a tenth of a millisecond a request.
	// serial keeps a reconnection and the editor's messages apart.
	var serial sync.Mutex
	lost := make(chan int, 4)
	if restore {
		// An editor whose initialize was not answered yet is started
		// afresh, its initialize sent as it came.
		r.mu.Lock()
		answered := firstInit(r) == ""
		r.mu.Unlock()
		if err := r.connect(ctx, lost, answered); err != nil {
			return err
		}
	}
	editorErr := make(chan error, 1)
	go func() {
		if restore {
			// The server may have been lost in the middle of reading a
			// message of the editor's.
			if err := skipToHeader(in); err != nil {
				editorErr <- err
				return
			}
		}
		for {
			body, err := readMessage(in, nil) // kept: pending, replayed
			if err != nil {
				editorErr <- err
				return
			}
			var m relayMsg
			if json.Unmarshal(body, &m) != nil {
				continue
			}
			m.raw = body
			if ctx.Err() != nil {
				return
			}
			serial.Lock()
			err = r.fromEditor(ctx, m, lost)
			serial.Unlock()
			r.mu.Lock()
			done := r.exited
			r.mu.Unlock()
			if err != nil || done {
				editorErr <- err
				return
			}
		}
	}()
	defer func() {
		r.mu.Lock()
		if r.conn != nil {
			r.conn.Close()
		}
		r.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-editorErr:
			if err == io.EOF {
				return nil
			}
			return err
		case gen := <-lost:
			serial.Lock()
			r.mu.Lock()
			stale := gen != r.gen || r.exited
			r.mu.Unlock()
			var err error
			if !stale {
				r.opts.Logger.Warn("lost the server; connecting again and restoring the editor's documents")
				err = r.connect(ctx, lost, true)
			}
			serial.Unlock()
			if err != nil {
				return err
			}
		}
	}
}

// fromEditor records what m changes and sends it on.
func (r *relay) fromEditor(ctx context.Context, m relayMsg, lost chan int) error {
	if !r.record(m) {
		return nil
	}
	r.mu.Lock()
	conn := r.conn
	r.mu.Unlock()
	if conn == nil {
		if err := r.connect(ctx, lost, false); err != nil {
			return err
		}
		r.mu.Lock()
		conn = r.conn
		r.mu.Unlock()
		if m.Method == "initialize" {
			return nil // connect sent it
		}
	}
	if _, err := writeMessage(conn, &r.connBuf, m.raw); err != nil {
		r.opts.Logger.Debug("writing to the server", "error", err)
	}
	return nil
}

// record keeps what the editor's message m changes of what a new server
// must be given, and reports whether m goes to the server.
func (r *relay) record(m relayMsg) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case m.Method == answeredMethod:
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			delete(r.pending, string(p.ID))
		}
		return false
	case m.Method == "initialized":
		// The editor has its initialize's answer (from the server it
		// was handed to, which the relay does not hear).
		if id := firstInit(r); id != "" {
			delete(r.pending, id)
		}
	case m.Method == "initialize":
		r.initParams = m.Params
		r.root = rootOf(m.Params)
	case m.Method == "exit":
		r.exited = true
	case m.Method == "textDocument/didOpen":
		var p struct {
			TextDocument struct {
				URI        string `json:"uri"`
				LanguageID string `json:"languageId"`
				Version    int32  `json:"version"`
				Text       string `json:"text"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			r.docs[p.TextDocument.URI] = &relayDoc{p.TextDocument.LanguageID, p.TextDocument.Version, p.TextDocument.Text}
		}
	case m.Method == "textDocument/didChange":
		var p struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int32  `json:"version"`
			} `json:"textDocument"`
			ContentChanges json.RawMessage `json:"contentChanges"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			if d := r.docs[p.TextDocument.URI]; d != nil {
				if text, err := ApplyChanges(d.text, p.ContentChanges); err == nil {
					d.text, d.version = text, p.TextDocument.Version
				}
			}
		}
	case m.Method == "textDocument/didClose":
		var p struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			delete(r.docs, p.TextDocument.URI)
		}
	case m.Method == "" && m.ID != nil:
		// The editor's answer to a request of the server's: only the
		// connection that asked may hear it.
		gen, ok := r.serverCalls[string(m.ID)]
		delete(r.serverCalls, string(m.ID))
		if !ok || gen != r.gen {
			return false
		}
	}
	if m.Method != "" && m.ID != nil {
		r.pending[string(m.ID)] = m
		r.order = append(r.order, string(m.ID))
		if len(r.order) > 2*len(r.pending)+64 {
			// Drop the answered, so that the order does not grow with
			// every request of a long session.
			r.order = slices.DeleteFunc(r.order, func(id string) bool { _, ok := r.pending[id]; return !ok })
		}
	}
	return true
}

// connect dials the server and, on a new connection after a lost one
// (restore), gives it the editor's initialize, its documents and its
// unanswered requests.
func (r *relay) connect(ctx context.Context, lost chan int, restore bool) error {
	r.mu.Lock()
	root, initParams := r.root, r.initParams
	r.mu.Unlock()
	var conn io.ReadWriteCloser
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if conn, err = r.opts.Dial(ctx, root); err == nil {
			break
		}
	}
	if err != nil {
		r.failPending(fmt.Sprintf("goplsmcp lsp cannot reach its server: %v", err))
		return fmt.Errorf("connecting to the server: %w", err)
	}
	r.mu.Lock()
	if r.conn != nil {
		r.conn.Close()
	}
	r.gen++
	gen := r.gen
	r.conn = conn
	var replay [][]byte
	initBody, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(internalID), "method": "initialize", "params": initParams})
	if !restore {
		// The editor's own initialize is sent as it came, answered
		// to the editor.
		if m, ok := r.pending[firstInit(r)]; ok {
			replay = append(replay, m.raw)
		}
	} else {
		replay = append(replay, initBody, []byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
		for uri, d := range r.docs {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
				"textDocument": map[string]any{"uri": uri, "languageId": d.languageID, "version": d.version, "text": d.text}}})
			replay = append(replay, b)
		}
		var keep []string
		for _, id := range r.order {
			m, ok := r.pending[id]
			if !ok {
				continue
			}
			if m.Method == "workspace/executeCommand" || m.Method == "initialize" {
				delete(r.pending, id)
				msg := "the server stopped while it ran this command; check what it changed before running it again"
				if m.Method == "initialize" {
					msg = "the server stopped during initialize"
				}
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32603, "message": msg}})
				go r.toEditor(b)
				continue
			}
			keep = append(keep, id)
			replay = append(replay, m.raw)
		}
		r.order = keep
	}
	r.mu.Unlock()
	for _, b := range replay {
		if _, err := writeMessage(conn, &r.connBuf, b); err != nil {
			break
		}
	}
	go r.readServer(conn, gen, lost)
	return nil
}

func firstInit(r *relay) string {
	for _, id := range r.order {
		if r.pending[id].Method == "initialize" {
			return id
		}
	}
	return ""
}

// readServer relays what the server on conn says to the editor, until
// the connection ends.
func (r *relay) readServer(conn io.ReadWriteCloser, gen int, lost chan int) {
	br := bufio.NewReader(conn)
	var buf []byte
	for {
		// The body is done with when it has been written to the editor,
		// so one buffer serves every message.
		body, err := readMessage(br, buf)
		if cap(body) <= keptFrame {
			buf = body
		}
		if err != nil {
			select {
			case lost <- gen:
			default:
			}
			return
		}
		// Only what the relay keeps track of, with the parser gopls's own
		// messages are read with (stream.go): a result (a completion list
		// or the references of a common name on a large workspace is
		// tens of kilobytes to megabytes) is passed on undecoded, and
		// encoding/json's two passes over it cost the editor a
		// millisecond on such answers.
		var m struct {
			ID     rawPart `json:"id"`
			Method string  `json:"method"`
		}
		if _, err := segjson.Parse(body, &m, segjson.ZeroCopy); err != nil {
			continue
		}
		r.mu.Lock()
		if gen != r.gen {
			r.mu.Unlock()
			return
		}
		switch {
		case m.Method == "" && string(m.ID) == internalID:
			r.mu.Unlock()
			continue // the answer to a restoring initialize
		case m.Method == "" && m.ID != nil:
			delete(r.pending, string(m.ID))
		case m.Method != "" && m.ID != nil:
			r.serverCalls[string(m.ID)] = gen
		}
		r.mu.Unlock()
		if err := r.toEditor(body); err != nil {
			return
		}
	}
}

// failPending answers the editor's unanswered requests with msg.
func (r *relay) failPending(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range r.order {
		if m, ok := r.pending[id]; ok {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32603, "message": msg}})
			go r.toEditor(b)
		}
	}
	clear(r.pending)
	r.order = nil
}

// rootOf is the directory an initialize names: its first workspace
// folder, else rootUri, else rootPath; "" if none.
func rootOf(params json.RawMessage) string {
	var p struct {
		RootURI          string `json:"rootUri"`
		RootPath         string `json:"rootPath"`
		WorkspaceFolders []struct {
			URI string `json:"uri"`
		} `json:"workspaceFolders"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	for _, u := range []string{firstFolder(p.WorkspaceFolders), p.RootURI} {
		if u == "" {
			continue
		}
		if path, err := URIPath(u); err == nil {
			return path
		}
		if pu, err := url.Parse(u); err == nil && pu.Path != "" {
			return pu.Path
		}
	}
	return p.RootPath
}

func firstFolder(fs []struct {
	URI string `json:"uri"`
}) string {
	if len(fs) == 0 {
		return ""
	}
	return fs[0].URI
}
