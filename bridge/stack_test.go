package bridge_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// stack is the whole server in-process on a root, with its client.
type stack struct {
	client *mcp.Client
	server *mcp.Server
	notes  *notes
	lsp    *lspclient.Client
	bridge *bridge.Bridge
}

// stackConfig configures startStackOf; its zero value is the usual stack.
type stackConfig struct {
	// lsp starts gopls; Gopls defaults to the pinned ../bin/gopls, Root is
	// the stack's.
	lsp lspclient.Options
	// bridge configures the tools; Root and Client are the stack's.
	bridge bridge.Config
	// version is the protocol version to initialize at (2025-11-25).
	version string
	// notify, when set, also sees every notification the client receives.
	notify func(method string, params json.RawMessage)
}

// pinnedGopls is the absolute path of the gopls that make builds.
func pinnedGopls(t testing.TB) string {
	t.Helper()
	gopls, err := filepath.Abs("../bin/gopls")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gopls); err != nil {
		t.Fatalf("%s is missing: run make build (or make test) first", gopls)
	}
	return gopls
}

// startStackOf runs the whole server in-process on root — real gopls, real
// bridge, real MCP session over pipes — and returns it initialized. The
// session ends, and gopls with it, when the test does.
func startStackOf(t testing.TB, root string, sc stackConfig) *stack {
	t.Helper()
	if sc.lsp.Gopls == "" {
		sc.lsp.Gopls = pinnedGopls(t)
	}
	if sc.version == "" {
		sc.version = "2025-11-25"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc.lsp.Root = root
	client, err := lspclient.Start(ctx, sc.lsp)
	if err != nil {
		t.Fatal(err)
	}
	sc.bridge.Root, sc.bridge.Client = root, client
	br, err := bridge.New(sc.bridge)
	if err != nil {
		client.Close()
		t.Fatal(err)
	}
	st := &stack{notes: &notes{}, lsp: client, bridge: br}
	st.server = mcp.NewServer("goplsmcp", "test", nil)
	if err := br.Register(st.server); err != nil {
		client.Close()
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- st.server.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := <-served; err != nil {
			t.Errorf("serving: %v", err)
		}
		client.Close()
	})
	st.client = mcp.NewClient(outR, inW)
	st.client.OnNotification = func(method string, params json.RawMessage) {
		st.notes.add(method, params)
		if sc.notify != nil {
			sc.notify(method, params)
		}
	}
	if _, err := st.client.Initialize(ctx, sc.version); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return st
}
