//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nofileEnv, set in the environment of this test binary, makes it a
// launcher: it lowers its descriptor limit (soft and hard, since the Go
// runtime raises the soft one to the hard one) to the value and execs its
// arguments after "--".
const nofileEnv = "GOPLSMCP_TEST_NOFILE"

func init() {
	v := os.Getenv(nofileEnv)
	if v == "" {
		return
	}
	n, err := strconv.ParseUint(v, 10, 64)
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	if err == nil {
		err = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n})
	}
	if err == nil {
		os.Unsetenv(nofileEnv)
		err = syscall.Exec(args[0], args, os.Environ())
	}
	fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
	os.Exit(3)
}

// TestHTTPHeldConnections holds 300 connections without the token open
// against a server limited to 256 descriptors — some sending nothing,
// some a POST whose body never ends, some idling after /healthz — and
// then checks that a client with the token still gets its initialize
// answered within a second.
func TestHTTPHeldConnections(t *testing.T) {
	root := exampleRoot(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "--", binary, "--root", root, "--gopls", goplsPath(t), "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), nofileEnv+"=256")
	p := startCmd(t, cmd)
	url := p.stderrMatch(`serving MCP at (http://\S+);`)[0]
	token := p.stderrMatch(`Authorization: Bearer (\S+)`)[0]
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	goplsPID := p.goplsPID()

	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := range 300 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		held = append(held, c)
		switch i % 3 {
		case 0: // nothing at all
		case 1: // a body that never ends, and no token
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", addr)
		case 2: // a probe, then idle on a kept-alive connection
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		}
	}
	// Every connection has reached the server before the real client
	// comes: each probe has its answer (or its connection was shed).
	for i := 2; i < len(held); i += 3 {
		held[i].SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := http.ReadResponse(bufio.NewReader(held[i]), nil); err != nil && !isClosed(err) {
			t.Fatalf("probe %d: %v", i, err)
		}
	}

	client := &http.Client{Timeout: time.Second}
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	began := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("initialize with the token, behind 300 held connections: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"protocolVersion"`) {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}
	t.Logf("initialize answered in %s behind 300 held connections", time.Since(began).Round(time.Millisecond))
	p.stop(goplsPID)
}

// isClosed reports whether err is a connection the server closed.
func isClosed(err error) bool {
	return err == io.EOF || err == io.ErrUnexpectedEOF || strings.Contains(err.Error(), "connection reset")
}
