//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stderrMatch waits for a stderr line matching pattern and returns its
// groups.
func (p *proc) stderrMatch(pattern string) []string {
	p.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line := <-p.stderr:
			if m := re.FindStringSubmatch(line); m != nil {
				return m[1:]
			}
		case <-deadline:
			p.t.Fatalf("goplsmcp wrote no stderr line matching %q within 30s", pattern)
		}
	}
}

// startHTTPBinary runs goplsmcp --http on a free loopback port with a
// generated token and returns the endpoint and the token it printed.
func startHTTPBinary(t *testing.T, root string, args ...string) (p *proc, url, token string) {
	t.Helper()
	args = append([]string{"--root", root, "--gopls", goplsPath(t), "--http", "127.0.0.1:0"}, args...)
	p = startBinary(t, args...)
	url = p.stderrMatch(`serving MCP at (http://\S+);`)[0]
	token = p.stderrMatch(`Authorization: Bearer (\S+)`)[0]
	return p, url, token
}

// stop sends SIGTERM and checks that goplsmcp and its gopls are gone
// within the shutdown bound, with status 0.
func (p *proc) stop(goplsPID int) {
	p.t.Helper()
	p.stopWithin(goplsPID, shutdownBound)
}

// stopWithin is stop with another bound.
func (p *proc) stopWithin(goplsPID int, bound time.Duration) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(bound):
		p.t.Fatalf("goplsmcp still running %s after SIGTERM", bound)
	}
	if !waitGone(goplsPID, time.Now().Add(time.Second)) {
		p.t.Errorf("gopls %d still exists after goplsmcp exited", goplsPID)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		p.t.Errorf("goplsmcp exited with status %d after SIGTERM, want 0", code)
	}
}

// tokenTransport adds a bearer token to every request.
type tokenTransport struct{ token string }

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestInteropGoSDKHTTP connects the official Go SDK client to the real
// binary over Streamable HTTP (docs/sidecar.md), with its default options (a
// server/discover probe, which makes it modern: no session), and at two
// 2025 versions (initialize, a session): it lists tools, calls some,
// reads a resource, gets a prompt, receives gopls's log messages (on the
// session's event stream, or on the stream of the modern call that set a
// log level), and ends the session. The server ignores its stdin (a container's is often empty)
// and SIGTERM ends it, and gopls, within the shutdown bound.
func TestInteropGoSDKHTTP(t *testing.T) {
	root := exampleRoot(t)
	p, url, token := startHTTPBinary(t, root)
	goplsPID := p.goplsPID()
	// Over HTTP, the end of stdin ends nothing.
	p.stdin.Close()

	for _, version := range []string{"", "2025-11-25", "2025-03-26"} {
		t.Run("version "+version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			logs := make(chan *mcpsdk.LoggingMessageParams, 1000)
			client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "interop-http", Version: "0"}, &mcpsdk.ClientOptions{
				LoggingMessageHandler: func(ctx context.Context, r *mcpsdk.LoggingMessageRequest) {
					select {
					case logs <- r.Params:
					default:
					}
				},
			})
			transport := &mcpsdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tokenTransport{token}}}
			cs, err := client.Connect(ctx, transport, &mcpsdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			modern := want >= "2026-07-28"
			if got := cs.InitializeResult().ProtocolVersion; got != want {
				t.Errorf("negotiated %s, want %s", got, want)
			}
			n := 0
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatalf("listing tools: %v", err)
				}
				if (tool.OutputSchema != nil) != (want >= "2025-06-18") {
					t.Errorf("%s at %s: outputSchema %v", tool.Name, want, tool.OutputSchema != nil)
				}
				n++
			}
			if want := len(bridge.DefaultTools()); n != want {
				t.Errorf("%d tools listed, want all %d", n, want)
			}
			res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "go_describe",
				Arguments: map[string]any{"file": "shapes/shapes.go", "symbol": "Rect.Area"}})
			if err != nil || res.IsError {
				t.Fatalf("go_describe: %v %+v", err, res)
			}
			if text, _ := res.Content[0].(*mcpsdk.TextContent); text == nil || text.Text != "func (r Rect) Area() float64\nArea returns the rectangle's area." {
				t.Errorf("go_describe text: %#v", res.Content[0])
			}
			rr, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "goplsmcp://limits"})
			if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" {
				t.Errorf("reading goplsmcp://limits: %v %+v", err, rr)
			}
			pr, err := cs.GetPrompt(ctx, &mcpsdk.GetPromptParams{Name: "review-go", Arguments: map[string]string{"file": "main.go"}})
			if err != nil || len(pr.Messages) == 0 {
				t.Errorf("getting review-go: %v %+v", err, pr)
			}

			var meta mcpsdk.Meta
			if modern {
				// The level is the call's own.
				meta = mcpsdk.Meta{"io.modelcontextprotocol/logLevel": "debug"}
			} else {
				//lint:ignore SA1019 logging is current in every 2025 version.
				if err := cs.SetLoggingLevel(ctx, &mcpsdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
					t.Fatal(err)
				}
			}
			// A package gopls has not seen makes it load again, and log
			// that, naming it: on a server of many sessions the message
			// goes to the server's log, never to a session, for it may
			// name another session's unsaved file (docs/safety.md).
			pkg := "extra" + strings.ReplaceAll(want, "-", "")
			if err := os.MkdirAll(filepath.Join(root, pkg), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, pkg, "x.go"), []byte("package "+pkg+"\n\nvar X = 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Meta: meta, Name: "go_diagnostics", Arguments: map[string]any{"files": []string{pkg + "/x.go"}}}); err != nil || res.IsError {
				t.Fatalf("go_diagnostics: %v %+v", err, res)
			}
			p.stderrMatch(`packages.Load.*` + pkg + `.*component=gopls`)
			select {
			case m := <-logs:
				if m.Logger == "gopls" {
					t.Errorf("gopls's message reached a session of the HTTP server: %+v", m)
				}
			default:
			}
			if err := cs.Close(); err != nil {
				t.Errorf("closing the session (DELETE): %v", err)
			}
		})
	}
	p.stop(goplsPID)
}

// TestHTTPOffLoopback checks the sidecar set-up: listening on every
// interface needs --token-file and is logged loudly; the token from the
// file is required, and a Host that is not this machine's, nor one given
// with --allow-host (a Kubernetes Service's name), is refused.
func TestHTTPOffLoopback(t *testing.T) {
	root := exampleRoot(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	const token = "sidecar-token-0123456789abcdef"
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startBinary(t, "--root", root, "--gopls", goplsPath(t), "--http", "0.0.0.0:0", "--token-file", tokenFile,
		"--allow-host", "goplsmcp-devbox", "--allow-host", "goplsmcp-devbox.dev.svc.cluster.local")
	goplsPID := p.goplsPID()
	got := p.stderrMatch(`level=WARN msg="(serving MCP over HTTP on a NON-LOOPBACK address[^"]*)".* url=(\S+)`)
	url := got[1]
	if !strings.HasPrefix(url, "http://localhost:") {
		t.Errorf("url %s, want http://localhost:PORT/mcp", url)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	post := func(auth, host string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		auth, host string
		want       int
	}{
		{"", "", http.StatusUnauthorized},
		{"Bearer not-the-token-0123456789", "", http.StatusUnauthorized},
		{"Bearer " + token, "", http.StatusOK},
		{"Bearer " + token, "attacker.example", http.StatusForbidden},
		{"Bearer " + token, "goplsmcp-devbox:8765", http.StatusOK},
		{"Bearer " + token, "GOPLSMCP-DEVBOX.dev.svc.cluster.local", http.StatusOK},
		{"Bearer " + token, "goplsmcp-devbox.dev", http.StatusForbidden},
	} {
		if got := post(tc.auth, tc.host); got != tc.want {
			t.Errorf("POST with %q, host %q: status %d, want %d", tc.auth, tc.host, got, tc.want)
		}
	}
	if name, err := os.Hostname(); err == nil {
		if got := post("Bearer "+token, name+":1"); got != http.StatusOK {
			t.Errorf("POST naming the host %s: status %d, want 200", name, got)
		}
	}
	p.stop(goplsPID)
}

// TestHTTPFlagErrors checks the HTTP flags' mistakes: each is a usage
// error (status 2) saying what to do, found before gopls starts.
func TestHTTPFlagErrors(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	spaced := filepath.Join(dir, "spaced")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	os.WriteFile(spaced, []byte("a token with spaces in it\n"), 0o600)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"token file without --http", []string{"--token-file", short}, "--token-file goes with --http"},
		{"no port", []string{"--http", "127.0.0.1"}, "want HOST:PORT"},
		{"every interface without a token file", []string{"--http", ":8765"}, "pass --token-file"},
		{"non-loopback without a token file", []string{"--http", "0.0.0.0:8765"}, "not only loopback"},
		{"missing token file", []string{"--http", "127.0.0.1:0", "--token-file", filepath.Join(dir, "none")}, "--token-file"},
		{"short token", []string{"--http", "127.0.0.1:0", "--token-file", short}, "at least 16 characters"},
		{"token with spaces", []string{"--http", "127.0.0.1:0", "--token-file", spaced}, "visible ASCII"},
		{"allowed host without --http", []string{"--allow-host", "goplsmcp.dev.svc"}, "--allow-host goes with --http"},
		{"allowed host with a port", []string{"--http", "127.0.0.1:0", "--allow-host", "goplsmcp.dev.svc:8765"}, "without a port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), append([]string{"--gopls", goplsPath(t)}, tt.args...), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(ee.msg, tt.want) {
				t.Errorf("run %v: %v, want a usage error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestHTTPSignalWithGoplsFrozen checks the HTTP shutdown at its worst: a
// session holds unsaved text (which its end reverts in gopls), gopls is
// stopped (SIGSTOP) and answers nothing, and a call waits for it when
// SIGTERM comes, through the whole drain. goplsmcp and gopls are still
// gone within the drain bound, and the waiting client gets an answer
// rather than a dropped connection.
func TestHTTPSignalWithGoplsFrozen(t *testing.T) {
	p, url, token := startHTTPBinary(t, exampleRoot(t))
	goplsPID := p.goplsPID()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "frozen", Version: "0"}, nil).Connect(ctx,
		&mcpsdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tokenTransport{token}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "go_diagnostics",
		Arguments: map[string]any{"file": "main.go", "text": "package main\n\nfunc main() {}\n"}})
	if err != nil || res.IsError {
		t.Fatalf("go_diagnostics with unsaved text: %v %+v", err, res)
	}
	if err := syscall.Kill(goplsPID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(goplsPID, syscall.SIGKILL) })
	answered := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "go_diagnostics", Arguments: map[string]any{}})
		answered <- err
	}()
	// The call is on its way when it is in flight at the server; its
	// POST cannot be observed from here, so the signal may also find it
	// still queued (then it is refused): both must end cleanly.
	p.stopWithin(goplsPID, drainBound)
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Error("the call in flight at SIGTERM never returned")
	}
}
