package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// protocolVersion is the MCP version the harness asks both servers for: the
// newest that gopls mcp's SDK and goplsmcp both speak, so that tools/list
// carries the same kinds of fields on both sides.
const protocolVersion = "2025-06-18"

// An mcpServer is an MCP server (goplsmcp, or gopls mcp) running as a child
// process, driven over stdio the way an agent's client drives it.
type mcpServer struct {
	name    string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	client  *mcp.Client
	stderr  *tailBuffer
	exited  chan struct{}
	waitErr error

	// tools maps each tool's name to its input properties; toolNames are
	// the names in the order tools/list gives them.
	tools     map[string]map[string]bool
	toolNames []string
	// toolsList is the raw tools/list result.
	toolsList json.RawMessage
	// calls counts the tools/call requests sent.
	calls atomic.Int64
	// timeout bounds each call, so that a server that stops answering
	// fails the run instead of hanging it.
	timeout time.Duration
}

// startServer starts argv in dir with env and returns once the process is
// running; call initialize next.
func startServer(name string, argv []string, dir string, env []string) (*mcpServer, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	s := &mcpServer{name: name, cmd: cmd, stderr: &tailBuffer{max: 16 << 10}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	s.stdin = stdin
	s.client = mcp.NewClient(stdout, stdin)
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// initialize performs the MCP handshake and lists the tools.
func (s *mcpServer) initialize(ctx context.Context) error {
	if _, err := s.client.Initialize(ctx, protocolVersion); err != nil {
		return s.fail("initialize", err)
	}
	raw, err := s.client.CallRaw(ctx, "tools/list", map[string]any{})
	if err != nil {
		return s.fail("tools/list", err)
	}
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("%s: tools/list: %w", s.name, err)
	}
	s.toolsList = raw
	s.tools = make(map[string]map[string]bool)
	for _, t := range list.Tools {
		props := make(map[string]bool)
		for p := range t.InputSchema.Properties {
			props[p] = true
		}
		s.tools[t.Name] = props
		s.toolNames = append(s.toolNames, t.Name)
	}
	return nil
}

// has reports whether the server offers tool, and, if params are given,
// whether the tool accepts each of them.
func (s *mcpServer) has(tool string, params ...string) bool {
	props, ok := s.tools[tool]
	if !ok {
		return false
	}
	for _, p := range params {
		if !props[p] {
			return false
		}
	}
	return true
}

// answer is one tools/call result as the harness measures it.
type answer struct {
	dur time.Duration
	// text is what the model reads: the result's text blocks, joined.
	text string
	// wire is the size of the whole JSON result, structured content
	// included.
	wire int
	// structured is the structured content, compact; empty for a
	// server that sends none.
	structured []byte
	isError    bool
}

// call sends one tools/call and times it from before the request is
// written to after the response is decoded.
func (s *mcpServer) call(ctx context.Context, tool string, args map[string]any) (answer, error) {
	s.calls.Add(1)
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	start := time.Now()
	raw, err := s.client.CallRaw(ctx, "tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", s.timeout)
		}
		return answer{}, s.fail(tool, err)
	}
	var res mcp.ToolResultJSON
	if err := json.Unmarshal(raw, &res); err != nil {
		return answer{}, fmt.Errorf("%s: %s: %w", s.name, tool, err)
	}
	dur := time.Since(start)
	var compact bytes.Buffer
	if len(res.StructuredContent) > 0 {
		if err := json.Compact(&compact, res.StructuredContent); err != nil {
			return answer{}, fmt.Errorf("%s: %s: structured content: %w", s.name, tool, err)
		}
	}
	return answer{dur: dur, text: res.Text(), wire: len(raw), structured: compact.Bytes(), isError: res.IsError}, nil
}

// mustCall is call, with a tool error turned into an error.
func (s *mcpServer) mustCall(ctx context.Context, tool string, args map[string]any) (answer, error) {
	a, err := s.call(ctx, tool, args)
	if err == nil && a.isError {
		err = fmt.Errorf("%s: %s answered with an error: %.300s", s.name, tool, a.text)
	}
	return a, err
}

func (s *mcpServer) fail(what string, err error) error {
	select {
	case <-s.exited:
		return fmt.Errorf("%s: %s: the server exited (%v); its stderr ends with:\n%s", s.name, what, s.waitErr, s.stderr.String())
	default:
	}
	var rpcErr *mcp.Error
	if errors.As(err, &rpcErr) {
		return fmt.Errorf("%s: %s: %s", s.name, what, rpcErr.Message)
	}
	return fmt.Errorf("%s: %s: %w", s.name, what, err)
}

// pid is the server process's id.
func (s *mcpServer) pid() int { return s.cmd.Process.Pid }

// close ends the server the way a client does, by closing its stdin, and
// kills it if it has not exited in time. It returns how long the exit took.
func (s *mcpServer) close() time.Duration {
	start := time.Now()
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		// Kill the whole tree: gopls mcp has no children, goplsmcp's
		// gopls dies with its parent.
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	return time.Since(start)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
