package bridge_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
	"golang.org/x/tools/txtar"
)

// The go_vulncheck archives: testdata/golden/go_vulncheck.txtar runs
// against the vulnerability database in testdata/vulncheck/vulndb, on a
// module requiring example.com/vulndep v1.0.0, which that database lists
// as vulnerable three times; go_vulncheck_offline.txtar has no database.
func init() {
	goldenSetups["go_vulncheck"] = vulncheckStack
	// An external dependency to place in the graph.
	goldenSetups["go_package_graph"] = vulncheckStack
	goldenSetups["go_vulncheck_offline"] = func(t *testing.T, root string) (stackConfig, []string) {
		// Not even one from the environment the tests run in.
		return stackConfig{lsp: lspclient.Options{Settings: map[string]any{"env": map[string]any{"GOVULNDB": ""}}}}, nil
	}
}

// vulndbURL is the file:// URL of the test vulnerability database.
func vulndbURL(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs("../testdata/vulncheck/vulndb")
	if err != nil {
		t.Fatal(err)
	}
	return lspclient.FileURI(dir)
}

// vulncheckStack runs gopls with the test database as GOVULNDB and a
// module cache holding the vulnerable dependency.
func vulncheckStack(t *testing.T, root string) (stackConfig, []string) {
	cache := vulnModCache(t)
	// As --env gives them.
	return stackConfig{lsp: lspclient.Options{Settings: map[string]any{"env": map[string]any{
		"GOVULNDB":   vulndbURL(t),
		"GOMODCACHE": cache,
	}}}}, []string{cache, "$TESTMODCACHE"}
}

// vulnModCache builds, offline, a module cache holding example.com/vulndep
// v1.0.0 made from testdata/vulncheck/vulndep: a file:// module proxy of
// its files, from which go mod download fills a fresh cache. A module
// replaced by a directory would not do: govulncheck matches a module by
// path and version, and a directory has no version.
func vulnModCache(t testing.TB) string {
	t.Helper()
	proxy, cache, work := realTempDir(t), realTempDir(t), realTempDir(t)
	mod := module.Version{Path: "example.com/vulndep", Version: "v1.0.0"}
	src := "../testdata/vulncheck/vulndep"
	at := filepath.Join(proxy, "example.com", "vulndep", "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	if err := zip.CreateFromDir(&zipped, mod, src); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":        []byte(mod.Version + "\n"),
		"v1.0.0.info": []byte(`{"Version":"v1.0.0","Time":"2099-01-01T00:00:00Z"}`),
		"v1.0.0.mod":  gomod,
		"v1.0.0.zip":  zipped.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", mod.Path+"@"+mod.Version)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOPROXY="+lspclient.FileURI(proxy), "GOMODCACHE="+cache,
		"GOFLAGS=-modcacherw", "GOSUMDB=off", "GOTOOLCHAIN=local", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("filling the module cache: %v\n%s", err, out)
	}
	return cache
}

// TestVulncheckDatabase checks the test database the way govulncheck
// reads a file:// GOVULNDB: the index names every entry, and each entry
// is in ID/<id>.json.
func TestVulncheckDatabase(t *testing.T) {
	db := "../testdata/vulncheck/vulndb"
	index, err := os.ReadFile(filepath.Join(db, "index", "modules.json"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(db, "ID"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 3 {
		t.Fatalf("%d entries in the test database; want the three the fixture needs", len(entries))
	}
	for _, e := range entries {
		id := strings.TrimSuffix(e.Name(), ".json")
		data, err := os.ReadFile(filepath.Join(db, "ID", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(`"id":"`+id+`"`)) || !bytes.Contains(index, []byte(`"id":"`+id+`"`)) {
			t.Errorf("%s: the entry must carry its ID and be in index/modules.json", e.Name())
		}
	}
}

// TestVulncheckProgressAndCancel checks that a scan reports progress
// while it runs, and that cancelling the call stops gopls's scan, which
// gopls runs detached from the request: it ends without completing.
func TestVulncheckProgressAndCancel(t *testing.T) {
	root := realTempDir(t)
	ar, err := txtar.ParseFile("../testdata/golden/go_vulncheck.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "@") {
			writeWorkspaceFile(t, root, f.Name, f.Data)
		}
	}
	sc, _ := vulncheckStack(t, root)
	scans := make(chan lspclient.Progress, 64)
	sc.lsp.OnProgress = func(p lspclient.Progress) {
		if p.Title == "govulncheck" {
			select {
			case scans <- p:
			default:
			}
		}
	}
	st := startStackOf(t, root, sc)
	ctx := testCtx(t)

	// Request 2: a whole scan, with a progress token.
	var res mcp.ToolResultJSON
	params := map[string]any{"name": "go_vulncheck", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "scan"}}
	if err := st.client.Call(ctx, "tools/call", params, &res); err != nil || res.IsError {
		t.Fatalf("go_vulncheck: %v %s", err, res.Text())
	}
	var msgs []string
	for _, n := range st.notes.snapshot() {
		if n.method == "notifications/progress" && n.params["progressToken"] == "scan" {
			msgs = append(msgs, n.params["message"].(string))
		}
	}
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "gopls: govulncheck") }) {
		t.Errorf("progress messages %q: want gopls's govulncheck reports", msgs)
	}
	for len(scans) > 0 {
		<-scans
	}

	// Request 3: cancelled once gopls has begun the scan.
	go func() {
		_, _ = st.client.CallRaw(ctx, "tools/call", map[string]any{"name": "go_vulncheck", "arguments": map[string]any{}})
	}()
	waitScan(t, scans, func(p lspclient.Progress) bool { return !p.Done })
	if err := st.client.Notify("notifications/cancelled", map[string]any{"requestId": 3, "reason": "test"}); err != nil {
		t.Fatal(err)
	}
	done := waitScan(t, scans, func(p lspclient.Progress) bool { return p.Done })
	// gopls kills govulncheck and says "canceled", or "failed" when it
	// sees the killed process before the cancelled context; the same
	// scan completed just before.
	if done.Message != "canceled" && done.Message != "failed" {
		t.Errorf("gopls's scan ended %q after the call was cancelled; want it stopped", done.Message)
	}
	// The server goes on serving.
	if err := st.client.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
}

// waitScan waits up to a minute for a govulncheck report that ok accepts.
func waitScan(t *testing.T, scans <-chan lspclient.Progress, ok func(lspclient.Progress) bool) lspclient.Progress {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case p := <-scans:
			if ok(p) {
				return p
			}
		case <-deadline:
			t.Fatal("timed out waiting for gopls's govulncheck progress")
		}
	}
}
