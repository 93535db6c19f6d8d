package lspclient

import (
	"bufio"
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
)

// maxHeaderLine bounds a header line of a message from gopls.
const maxHeaderLine = 4096

// lspStream frames the JSON-RPC messages exchanged with gopls (a
// Content-Length header, then the body) for jsonrpc2's connection, in
// place of jsonrpc2's own stream. That one decodes every message, and the
// result of every call, through a decoder with a fresh 32 KiB buffer, and
// writes each message in two writes: at a few messages per tool call, the
// garbage and system calls were a good part of what goplsmcp spends. Here
// a message is read into a buffer of its size and parsed in place, and
// written in one write.
//
// The results of the client's own calls are also set aside here, by
// request id, for process.call to decode once, straight into the
// caller's type (see resultTable); jsonrpc2's connection gets the
// response without its result.
type lspStream struct {
	conn io.ReadWriteCloser
	in   *bufio.Reader
	// heard counts the messages read from gopls: one sign that it works
	// (see stall.go).
	heard   atomic.Uint64
	frames  frameWriter
	results resultTable
}

func newLSPStream(conn io.ReadWriteCloser) *lspStream {
	return &lspStream{conn: conn, in: bufio.NewReaderSize(conn, 64<<10)}
}

// Read implements jsonrpc2.Stream.
func (s *lspStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	data, total, err := readFrame(s.in, "gopls")
	if err != nil {
		return nil, total, err
	}
	s.heard.Add(1)
	msg, err := s.decode(data)
	return msg, total, err
}

// rawPart is a part of a message kept as it is, as a slice of the
// message's own buffer.
type rawPart []byte

func (r *rawPart) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// decode parses one message. Results of calls are set aside (see
// resultTable); requests and notifications from gopls carry their params.
func (s *lspStream) decode(data []byte) (jsonrpc2.Message, error) {
	var w struct {
		ID     *jsonrpc2.ID    `json:"id"`
		Method string          `json:"method"`
		Params rawPart         `json:"params"`
		Result rawPart         `json:"result"`
		Error  *jsonrpc2.Error `json:"error"`
	}
	if _, err := json.Parse(data, &w, json.ZeroCopy); err != nil {
		return nil, fmt.Errorf("decoding a message from gopls: %w", err)
	}
	switch {
	case w.Method == "" && w.ID == nil:
		return nil, fmt.Errorf("a message from gopls has neither method nor id: %w", jsonrpc2.ErrInvalidRequest)
	case w.Method == "":
		s.results.put(*w.ID, stdjson.RawMessage(w.Result))
		var err error
		if w.Error != nil {
			err = w.Error
		}
		return jsonrpc2.NewResponse(*w.ID, nil, err)
	case w.ID != nil:
		return jsonrpc2.NewCall(*w.ID, w.Method, stdjson.RawMessage(w.Params))
	}
	return jsonrpc2.NewNotification(w.Method, stdjson.RawMessage(w.Params))
}

// Write implements jsonrpc2.Stream: header and body in one write.
func (s *lspStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.frames.write(s.conn, msg, "gopls")
}

// A frameWriter writes messages Content-Length framed, header and body
// in one write: in two, the reader wakes for the header and again for
// the body. Its user serialises writes (jsonrpc2's connection does).
type frameWriter struct {
	out []byte // the message being written
}

func (f *frameWriter) write(w io.Writer, msg jsonrpc2.Message, peer string) (int64, error) {
	m, ok := msg.(stdjson.Marshaler)
	if !ok {
		return 0, fmt.Errorf("cannot encode a %T", msg)
	}
	body, err := m.MarshalJSON()
	if err != nil {
		return 0, fmt.Errorf("encoding a message for %s: %w", peer, err)
	}
	n, err := writeMessage(w, &f.out, body)
	return int64(n), err
}

// editorStream frames an editor's connection (see ServeEditor) as
// lspStream frames gopls's, its messages decoded as jsonrpc2 decodes
// them: a request's answer goes to the editor in one write.
type editorStream struct {
	conn   io.ReadWriteCloser
	in     *bufio.Reader
	frames frameWriter
}

func newEditorStream(conn io.ReadWriteCloser) *editorStream {
	return &editorStream{conn: conn, in: bufio.NewReaderSize(conn, 64<<10)}
}

// Read implements jsonrpc2.Stream.
func (s *editorStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	data, total, err := readFrame(s.in, "the editor")
	if err != nil {
		return nil, total, err
	}
	msg, err := decodeEditorMessage(data)
	return msg, total, err
}

// decodeEditorMessage parses one of an editor's messages in place, as
// lspStream.decode parses gopls's: jsonrpc2.DecodeMessage takes a fresh
// 32 KiB buffer for each, and the collections they cost fell on the
// editor's every request.
func decodeEditorMessage(data []byte) (jsonrpc2.Message, error) {
	var w struct {
		ID     *jsonrpc2.ID `json:"id"`
		Method string       `json:"method"`
		Params rawPart      `json:"params"`
	}
	if _, err := json.Parse(data, &w, json.ZeroCopy); err != nil {
		return nil, fmt.Errorf("decoding a message from the editor: %w", err)
	}
	switch {
	case w.Method == "" && w.ID == nil:
		return nil, fmt.Errorf("a message from the editor has neither method nor id: %w", jsonrpc2.ErrInvalidRequest)
	case w.Method == "", len(w.Params) == 0, string(w.Params) == "null":
		// An answer to one of the few requests gopls makes of the editor,
		// or a message without parameters (shutdown, exit): decoded as
		// jsonrpc2 decodes it, which leaves absent parts empty.
		return jsonrpc2.DecodeMessage(data)
	case w.ID != nil:
		return jsonrpc2.NewCall(*w.ID, w.Method, stdjson.RawMessage(w.Params))
	}
	return jsonrpc2.NewNotification(w.Method, stdjson.RawMessage(w.Params))
}

// Write implements jsonrpc2.Stream.
func (s *editorStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.frames.write(s.conn, msg, "the editor")
}

// Close implements jsonrpc2.Stream.
func (s *editorStream) Close() error { return s.conn.Close() }

// readFrame reads one Content-Length framed message from in, sent by
// peer (named in errors), into a buffer of its own size.
func readFrame(in *bufio.Reader, peer string) ([]byte, int64, error) {
	var total int64
	length := -1
	for {
		line, err := in.ReadSlice('\n')
		total += int64(len(line))
		if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxHeaderLine {
			return nil, total, fmt.Errorf("reading a message header from %s: the line is too long", peer)
		}
		if err != nil {
			return nil, total, fmt.Errorf("reading a message header from %s: %w", peer, err)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			return nil, total, fmt.Errorf("invalid header line from %s: %q", peer, line)
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 32)
			if err != nil || n <= 0 {
				return nil, total, fmt.Errorf("invalid Content-Length from %s: %q", peer, value)
			}
			length = int(n)
		}
	}
	if length < 0 {
		return nil, total, fmt.Errorf("a message from %s has no Content-Length", peer)
	}
	// Fresh for each message: the message's parts are slices of it.
	data := make([]byte, length)
	n, err := io.ReadFull(in, data)
	total += int64(n)
	if err != nil {
		return nil, total, fmt.Errorf("reading a message from %s: %w", peer, err)
	}
	return data, total, nil
}

// Close implements jsonrpc2.Stream.
func (s *lspStream) Close() error { return s.conn.Close() }

// A resultTable holds the results of the client's calls between the
// stream reading them and the caller taking them. A call that ends
// without its answer (cancelled, or the process failed) is marked
// abandoned, so that an answer arriving later is dropped, not kept.
type resultTable struct {
	mu        sync.Mutex
	got       map[jsonrpc2.ID]stdjson.RawMessage
	abandoned map[jsonrpc2.ID]bool
}

// put keeps the result of call id until it is taken, unless the call has
// ended already.
func (t *resultTable) put(id jsonrpc2.ID, result stdjson.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.abandoned[id] {
		delete(t.abandoned, id)
		return
	}
	if t.got == nil {
		t.got = make(map[jsonrpc2.ID]stdjson.RawMessage)
	}
	t.got[id] = result
}

// take returns the result of call id, which has ended, and forgets it.
// Without one, the call ended before its answer came, which is dropped
// when it does.
func (t *resultTable) take(id jsonrpc2.ID) (stdjson.RawMessage, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if res, ok := t.got[id]; ok {
		delete(t.got, id)
		return res, true
	}
	if t.abandoned == nil {
		t.abandoned = make(map[jsonrpc2.ID]bool)
	}
	t.abandoned[id] = true
	return nil, false
}

// size returns how many results and abandoned calls the table holds.
func (t *resultTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.got) + len(t.abandoned)
}

// decodeResult decodes a call's result into result, as jsonrpc2 did: an
// empty result leaves it alone.
func decodeResult(raw stdjson.RawMessage, result any) error {
	if result == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("unmarshaling result: %w", err)
	}
	return nil
}
