package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInteropGoSDK connects the official Go SDK client, an independent
// implementation of MCP, to the real binary: with its default options
// (which probe server/discover first, and so speak 2026-07-28
// with no handshake) and with each 2025 version forced. Each session lists
// tools, resources and prompts, calls a tool, reads a resource, gets a
// prompt, completes a prompt argument and (in the 2025 versions) sets the
// log level and pings, and sees exactly the version-gated fields its
// version has.
func TestInteropGoSDK(t *testing.T) {
	root := exampleRoot(t)
	for _, tc := range []struct{ name, ask, want string }{
		{"default options", "", "2026-07-28"},
		{"2025-11-25", "2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05", "2024-11-05"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "interop", Version: "0"}, nil)
			cmd := exec.Command(binary, "--root", root, "--gopls", goplsPath(t))
			wire := &syncBuffer{}
			transport := &mcpsdk.LoggingTransport{Transport: &mcpsdk.CommandTransport{Command: cmd}, Writer: wire}
			cs, err := client.Connect(ctx, transport, &mcpsdk.ClientSessionOptions{ProtocolVersion: tc.ask})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			structured := tc.want >= "2025-06-18"
			modern := tc.want >= "2026-07-28"
			if tc.ask == "" {
				// The SDK's default is to probe server/discover first; the
				// server answers it, and no initialize follows.
				lines := strings.Split(wire.String(), "\n")
				find := func(prefix, substr string) int {
					for i, l := range lines {
						if strings.HasPrefix(l, prefix) && strings.Contains(l, substr) {
							return i
						}
					}
					return -1
				}
				probe := find("write: ", `"method":"server/discover"`)
				answered := find("read: ", `"supportedVersions":["2026-07-28"`)
				initReq := find("write: ", `"method":"initialize"`)
				if probe != 0 || answered < probe || initReq != -1 {
					t.Errorf("the session did not start with an answered server/discover probe, and no initialize:\n%s", strings.Join(lines[:min(4, len(lines))], "\n"))
				}
			}

			init := cs.InitializeResult()
			if init.ProtocolVersion != tc.want {
				t.Errorf("negotiated %s, want %s", init.ProtocolVersion, tc.want)
			}
			if init.Instructions != bridge.Instructions {
				t.Errorf("instructions %q, want bridge.Instructions", init.Instructions)
			}
			caps := init.Capabilities
			if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Logging == nil {
				t.Errorf("capabilities %+v: want tools, resources, prompts and logging", caps)
			}
			if (caps.Completions != nil) != (tc.want >= "2025-03-26") {
				t.Errorf("completions capability %v at %s", caps.Completions, tc.want)
			}

			var tools []string
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatalf("listing tools: %v", err)
				}
				tools = append(tools, tool.Name)
				if (tool.Title != "") != structured || (tool.OutputSchema != nil) != structured {
					t.Errorf("%s at %s: title %q, outputSchema %v", tool.Name, tc.want, tool.Title, tool.OutputSchema != nil)
				}
				if (tool.Annotations != nil) != (tc.want >= "2025-03-26") {
					t.Errorf("%s at %s: annotations %+v", tool.Name, tc.want, tool.Annotations)
				}
			}
			if !slices.Contains(tools, "go_workspace") || !slices.Contains(tools, "go_describe") {
				t.Errorf("tools %v", tools)
			}

			res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "go_describe",
				Arguments: map[string]any{"file": "shapes/shapes.go", "symbol": "Rect.Area"}})
			if err != nil {
				t.Fatalf("calling go_describe: %v", err)
			}
			if res.IsError || len(res.Content) == 0 {
				t.Fatalf("go_describe: %+v", res)
			}
			if text, _ := res.Content[0].(*mcpsdk.TextContent); text == nil || text.Text != "func (r Rect) Area() float64\nArea returns the rectangle's area." {
				t.Errorf("go_describe text: %#v", res.Content[0])
			}
			if (res.StructuredContent != nil) != structured {
				t.Errorf("go_describe at %s: structuredContent %v", tc.want, res.StructuredContent)
			}
			ws, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "go_workspace"})
			if err != nil || ws.IsError {
				t.Fatalf("go_workspace: %v %+v", err, ws)
			}
			links := 0
			for _, c := range ws.Content {
				if l, ok := c.(*mcpsdk.ResourceLink); ok && l.URI == "goplsmcp://workspace" {
					links++
				}
			}
			if (links == 1) != structured {
				t.Errorf("go_workspace at %s: %d resource links", tc.want, links)
			}

			var resources []string
			for r, err := range cs.Resources(ctx, nil) {
				if err != nil {
					t.Fatalf("listing resources: %v", err)
				}
				resources = append(resources, r.URI)
			}
			if diff := cmp.Diff([]string{"goplsmcp://keywords", "goplsmcp://predeclared", "goplsmcp://limits", "goplsmcp://workspace"}, resources); diff != "" {
				t.Errorf("resources (-want +got):\n%s", diff)
			}
			rr, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "goplsmcp://keywords"})
			if err != nil {
				t.Fatalf("reading keywords: %v", err)
			}
			var keywords []string
			if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" || json.Unmarshal([]byte(rr.Contents[0].Text), &keywords) != nil || len(keywords) != 25 {
				t.Errorf("keywords resource: %+v", rr.Contents)
			}
			if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "goplsmcp://none"}); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "unknown resource") {
				t.Errorf("unknown resource: %v", err)
			}

			var prompts []string
			for p, err := range cs.Prompts(ctx, nil) {
				if err != nil {
					t.Fatalf("listing prompts: %v", err)
				}
				prompts = append(prompts, p.Name)
			}
			if diff := cmp.Diff([]string{"explain-go", "review-go"}, prompts); diff != "" {
				t.Errorf("prompts (-want +got):\n%s", diff)
			}
			pr, err := cs.GetPrompt(ctx, &mcpsdk.GetPromptParams{Name: "explain-go", Arguments: map[string]string{"file": "main.go", "symbol": "main"}})
			if err != nil {
				t.Fatalf("getting explain-go: %v", err)
			}
			if text, _ := pr.Messages[0].Content.(*mcpsdk.TextContent); text == nil || !strings.Contains(text.Text, `main.go, focusing on "main"`) {
				t.Errorf("explain-go: %#v", pr.Messages[0].Content)
			}
			comp, err := cs.Complete(ctx, &mcpsdk.CompleteParams{
				Ref:      &mcpsdk.CompleteReference{Type: "ref/prompt", Name: "review-go"},
				Argument: mcpsdk.CompleteParamsArgument{Name: "file", Value: "sha"},
			})
			if err != nil {
				t.Fatalf("completing: %v", err)
			}
			if diff := cmp.Diff([]string{"shapes/", "shapes/shapes.go"}, comp.Completion.Values); diff != "" {
				t.Errorf("completion (-want +got):\n%s", diff)
			}

			if modern {
				// 2026-07-28 has neither logging/setLevel nor ping.
				return
			}
			//lint:ignore SA1019 logging is current in every 2025 version.
			if err := cs.SetLoggingLevel(ctx, &mcpsdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
				t.Errorf("setting the log level: %v", err)
			}
			if err := cs.Ping(ctx, nil); err != nil {
				t.Errorf("ping after everything: %v", err)
			}
		})
	}
}

// TestGoplsMessagesReachClient checks docs/protocol.md's logging in a 2025
// session: after logging/setLevel, gopls's window/logMessage reaches the
// client as notifications/message from the logger "gopls". (A modern
// call's own log level: TestInteropGoSDKHTTP.)
func TestGoplsMessagesReachClient(t *testing.T) {
	root := exampleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logs := make(chan *mcpsdk.LoggingMessageParams, 1000)
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "interop", Version: "0"}, &mcpsdk.ClientOptions{
		LoggingMessageHandler: func(ctx context.Context, r *mcpsdk.LoggingMessageRequest) {
			select {
			case logs <- r.Params:
			default:
			}
		},
	})
	cmd := exec.Command(binary, "--root", root, "--gopls", goplsPath(t))
	cs, err := client.Connect(ctx, &mcpsdk.CommandTransport{Command: cmd}, &mcpsdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// Wait for the initial load, whose messages go to nobody: the client
	// has not asked for them yet.
	if res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "go_workspace"}); err != nil || res.IsError {
		t.Fatalf("go_workspace: %v %+v", err, res)
	}
	select {
	case m := <-logs:
		t.Errorf("a message below the default level (warning) reached the client: %+v", m)
	default:
	}
	//lint:ignore SA1019 logging is current in every version this server speaks.
	if err := cs.SetLoggingLevel(ctx, &mcpsdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	// A package gopls has not seen makes it load again, and log that.
	if err := os.MkdirAll(filepath.Join(root, "extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "extra", "extra.go"), []byte("package extra\n\nvar X = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "go_diagnostics", Arguments: map[string]any{"files": []string{"extra/extra.go"}}}); err != nil || res.IsError {
		t.Fatalf("go_diagnostics: %v %+v", err, res)
	}
	select {
	case m := <-logs:
		if m.Logger != "gopls" || m.Data == nil {
			t.Errorf("log message %+v, want one from gopls", m)
		}
		t.Logf("gopls said (%s): %.200v", m.Level, m.Data)
	case <-ctx.Done():
		t.Fatal("no message from gopls reached the client")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
