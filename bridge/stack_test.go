package bridge_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
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
	// lsp starts gopls; Gopls defaults to testGopls's, Root is
	// the stack's.
	lsp lspclient.Options
	// bridge configures the tools; Root and Client are the stack's.
	bridge bridge.Config
	// version is the protocol version to initialize at (2025-11-25).
	version string
	// notify, when set, also sees every notification the client receives.
	notify func(method string, params json.RawMessage)
}

// testGopls is the absolute path of the gopls the tests run (see
// goplsForTests).
func testGopls(t testing.TB) string {
	t.Helper()
	gopls, err := goplsForTests()
	if err != nil {
		t.Fatal(err)
	}
	return gopls
}

// goplsForTests returns the absolute path of the gopls the tests run: the
// pinned one make builds (bin/gopls), or the one $GOPLSMCP_TEST_GOPLS
// names, as make test-gopls-compat does to run the core tests against an
// older gopls.
func goplsForTests() (string, error) {
	gopls := cmp.Or(os.Getenv("GOPLSMCP_TEST_GOPLS"), "../bin/gopls")
	gopls, err := filepath.Abs(gopls)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(gopls); err != nil {
		return "", fmt.Errorf("%s is missing: run make build (or make test) first", gopls)
	}
	return gopls, nil
}

// startStackOf runs the whole server in-process on root — real gopls, real
// bridge, real MCP session over pipes — and returns it initialized. The
// session ends, and gopls with it, when the test does.
func startStackOf(t testing.TB, root string, sc stackConfig) *stack {
	t.Helper()
	if sc.lsp.Gopls == "" {
		sc.lsp.Gopls = testGopls(t)
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
