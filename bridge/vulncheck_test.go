package bridge_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	// An external dependency to place in the graph, and to show.
	goldenSetups["go_package_graph"] = vulncheckStack
	goldenSetups["go_source_modcache"] = vulncheckStack
	goldenSetups["go_complete_modcache"] = vulncheckStack
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

// TestVulncheckProgressAndCancel checks that a scan reports govulncheck's
// progress while it runs, and that cancelling the call stops the scan and
// the go commands it runs. The scan's go command is a script that, once
// armed, holds a FIFO open for writing (the test reads it to its end) and
// waits at a gate (another FIFO) that never opens; so do the processes it
// starts. Only a kill of the whole process group closes the FIFO.
func TestVulncheckProgressAndCancel(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the scan's processes are watched through /proc")
	}
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
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
	dir := realTempDir(t)
	gate, armed, alive := filepath.Join(dir, "gate"), filepath.Join(dir, "armed"), filepath.Join(dir, "alive")
	for _, fifo := range []string{gate, alive} {
		if err := mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "bin")
	script := "#!/bin/sh\nif [ -e '" + armed + "' ]; then exec 3>'" + alive + "'; cat '" + gate + "' >/dev/null; fi\nexec '" + realGo + "' \"$@\"\n"
	writeWorkspaceFile(t, bin, "go", []byte(script))
	if err := os.Chmod(filepath.Join(bin, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	started, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		f, err := os.Open(alive)
		close(started)
		if err == nil {
			_, _ = io.Copy(io.Discard, f)
			f.Close()
		}
	}()
	t.Cleanup(func() {
		// Opening a FIFO read-write never blocks: it lets a waiting
		// opener of the other end go, and closing it ends the wait of
		// anything reading.
		for _, fifo := range []string{gate, alive} {
			if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
				f.Close()
			}
		}
		<-ended
	})
	sc, _ := vulncheckStack(t, root)
	// The go command govulncheck runs is found on the PATH of its
	// environment, which gopls's env setting gives; gopls's own is found
	// on gopls's.
	sc.lsp.Settings["env"].(map[string]any)["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
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
	if !slices.Contains(msgs, "govulncheck: Checking the code against the vulnerabilities...") {
		t.Errorf("progress messages %q: want govulncheck's own", msgs)
	}

	// Request 3: cancelled while its go command waits.
	if err := os.WriteFile(armed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() {
		_, err := st.client.CallRaw(ctx, "tools/call", map[string]any{"name": "go_vulncheck", "arguments": map[string]any{}})
		answered <- err
	}()
	waitClosed(t, started, "the scan's go command to run")
	if err := st.client.Notify("notifications/cancelled", map[string]any{"requestId": 3, "reason": "test"}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, ended, "the cancelled scan's go commands to end")
	// The server goes on serving, and the cancelled call is not answered.
	if err := st.client.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-answered:
		t.Errorf("the cancelled call was answered (%v)", err)
	default:
	}
}
