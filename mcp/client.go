package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// A Client speaks MCP to a server over a pair of streams, one message per
// line. It is small on purpose: the demo, the tests and the benchmarks use
// it to drive a real goplsmcp (or another server) the way an agent would.
type Client struct {
	w       *lineWriter
	mu      sync.Mutex
	nextID  int
	pending map[string]chan *clientResponse
	done    chan struct{}
	err     error
	// OnNotification, if set before the first call, receives every
	// notification from the server, on the reading goroutine.
	OnNotification func(method string, params json.RawMessage)
}

type clientResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// NewClient returns a client that writes requests to w and reads messages
// from r until it ends.
func NewClient(r io.Reader, w io.Writer) *Client {
	c := &Client{w: &lineWriter{w: w}, pending: make(map[string]chan *clientResponse), done: make(chan struct{})}
	go c.read(r)
	return c
}

func (c *Client) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			clientResponse
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			c.fail(fmt.Errorf("server sent a line that is not JSON: %.80q", sc.Text()))
			return
		}
		if msg.Method != "" {
			if c.OnNotification != nil && len(msg.ID) == 0 {
				c.OnNotification(msg.Method, msg.Params)
			}
			continue
		}
		c.mu.Lock()
		ch := c.pending[string(msg.ID)]
		delete(c.pending, string(msg.ID))
		c.mu.Unlock()
		if ch != nil {
			resp := msg.clientResponse
			ch <- &resp
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	c.fail(err)
}

func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
}

// Done is closed when the server's output has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Call sends a request and decodes the result into result (which may be
// nil). An error answer is returned as an *Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(raw, result)
}

// CallRaw sends a request and returns its raw result.
func (c *Client) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := strconv.Itoa(c.nextID)
	ch := make(chan *clientResponse, 1)
	c.pending[id] = ch
	c.mu.Unlock()

	msg := map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.send(msg); err != nil {
		return nil, err
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-c.done:
		return nil, fmt.Errorf("%s: server closed the connection: %w", method, c.err)
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.send(msg)
}

func (c *Client) send(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.w.write(data)
}

// Initialize performs the handshake at the given protocol version and
// returns the server's initialize result.
func (c *Client) Initialize(ctx context.Context, version string) (json.RawMessage, error) {
	res, err := c.CallRaw(ctx, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "goplsmcp-client", "version": "0"},
	})
	if err != nil {
		return nil, err
	}
	return res, c.Notify("notifications/initialized", nil)
}

// CallTool calls a tool and returns its result. A tool error is a result
// with IsError set, not an error.
func (c *Client) CallTool(ctx context.Context, name string, args any) (*ToolResultJSON, error) {
	var res ToolResultJSON
	if err := c.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ToolResultJSON is a tools/call result as a client receives it.
type ToolResultJSON struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Text joins the text blocks of the result.
func (r *ToolResultJSON) Text() string {
	var texts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}
