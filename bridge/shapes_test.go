package bridge_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/mod/semver"
)

// The workspace shapes people have, beyond our fixtures: each is asked the
// same questions of goplsmcp and of gopls mcp (the pinned gopls, over its
// stdio), and the answers are compared fact by fact with the readers of
// the replay test (replay_test.go).

// xmodSum is the go.sum of a module that requires golang.org/x/mod
// v0.38.0, which goplsmcp's own go.mod requires: the module cache that
// built goplsmcp has it, and vendor/ is made from there, offline.
const xmodSum = "golang.org/x/mod v0.38.0 h1:MECBjubtXD7yj4HrhIUcywNaGeNVUdfVnxmPajOk4yk=\n" +
	"golang.org/x/mod v0.38.0/go.mod h1:V6Xz0pq8TQ3dGqVQ1FVHuelZpAL0uNhSkk9ogYP3c40=\n"

const xmodMain = `package main

import "golang.org/x/mod/semver"

// Newer reports whether v is a newer version than w.
func Newer(v, w string) bool { return semver.Compare(v, w) > 0 }

func main() { println(semver.IsValid("v1"), Newer("v2", "v1")) }
`

// goIn runs the go command in dir, offline, from the module cache that
// built goplsmcp, where -mod=mod may fill go.sum and vendor/.
func goIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOWORK=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// vendoredModule makes a module whose only dependency is in vendor/.
func vendoredModule(t *testing.T) string {
	t.Helper()
	root := realTempDir(t)
	writeWorkspaceFile(t, root, "go.mod", []byte("module example.com/vendored\n\ngo 1.26\n\nrequire golang.org/x/mod v0.38.0\n"))
	writeWorkspaceFile(t, root, "go.sum", []byte(xmodSum))
	writeWorkspaceFile(t, root, "main.go", []byte(xmodMain))
	goIn(t, root, "mod", "vendor")
	return root
}

// vendoredWorkspace makes a go.work workspace of one module whose
// dependency is in the workspace's vendor/ (go work vendor).
func vendoredWorkspace(t *testing.T) string {
	t.Helper()
	root := realTempDir(t)
	writeWorkspaceFile(t, root, "go.work", []byte("go 1.26\n\nuse ./app\n"))
	writeWorkspaceFile(t, root, "app/go.mod", []byte("module example.com/app\n\ngo 1.26\n\nrequire golang.org/x/mod v0.38.0\n"))
	writeWorkspaceFile(t, root, "app/go.sum", []byte(xmodSum))
	writeWorkspaceFile(t, root, "app/main.go", []byte(xmodMain))
	goIn(t, root, "work", "vendor")
	return root
}

// emptyCacheEnv is the environment of both servers: offline, with a new,
// empty module cache, as on a fresh clone of a vendored repository.
func emptyCacheEnv(t *testing.T) []string {
	return []string{"GOMODCACHE=" + realTempDir(t), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-modcacherw"}
}

// startGoplsMCP runs `gopls mcp` on root over its stdio, with env added to
// the test's environment, and returns an initialized client.
func startGoplsMCP(t *testing.T, root string, env []string) *mcp.Client {
	t.Helper()
	cmd := exec.Command(testGopls(t), "mcp")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	c := mcp.NewClient(out, in)
	if _, err := c.Initialize(testCtx(t), "2025-06-18"); err != nil {
		t.Fatalf("gopls mcp: initialize: %v", err)
	}
	return c
}

// shape is one workspace with both servers started on it.
type shape struct {
	root       string
	ours, peer *mcp.Client
	release    goplsRelease // the peer's, for how it words its answers
}

// startShape starts goplsmcp (in process, gopls given env as --env gives
// it) and gopls mcp on root.
func startShape(t *testing.T, root string, env []string) *shape {
	t.Helper()
	ours := startStackOf(t, root, stackConfig{lsp: lspclient.Options{Env: env}}).client
	return &shape{root: root, ours: ours, peer: startGoplsMCP(t, root, env), release: binaryRelease(t, testGopls(t))}
}

// binaryRelease is the release of the gopls binary at path, as its
// version subcommand says it.
func binaryRelease(t *testing.T, path string) goplsRelease {
	t.Helper()
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", path, err)
	}
	// "golang.org/x/tools/gopls v0.24.0", then the build's details.
	fields := strings.Fields(string(out))
	if len(fields) < 2 || !semver.IsValid(fields[1]) {
		t.Fatalf("%s version said %q, which names no version", path, out)
	}
	return goplsRelease{version: fields[1]}
}

// ask asks tool of both servers with args, where "$WORKDIR" stands for the
// root, and compares their facts. It returns goplsmcp's answer.
func (s *shape) ask(t *testing.T, tool, args string) *mcp.ToolResultJSON {
	t.Helper()
	ctx := testCtx(t)
	var a map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(args, "$WORKDIR", s.root)), &a); err != nil {
		t.Fatal(err)
	}
	peer, err := s.peer.CallTool(ctx, tool, a)
	if err != nil {
		t.Fatalf("gopls mcp: %s: %v", tool, err)
	}
	ours, err := s.ours.CallTool(ctx, tool, a)
	if err != nil {
		t.Fatalf("goplsmcp: %s: %v", tool, err)
	}
	if peer.IsError || ours.IsError {
		t.Errorf("%s %s: gopls mcp answered (error %v):\n%s\ngoplsmcp answered (error %v):\n%s", tool, args, peer.IsError, peer.Text(), ours.IsError, ours.Text())
		return ours
	}
	facts := replayTools[tool]
	want := facts.gopls(strings.ReplaceAll(peer.Text(), s.root+string(filepath.Separator), ""), s.release)
	got := facts.ours(t, ours)
	if len(want) == 0 && !strings.HasPrefix(strings.TrimSpace(peer.Text()), "No ") {
		t.Fatalf("%s: found no facts in gopls mcp's answer:\n%s", tool, peer.Text())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s %s: facts (-gopls mcp +goplsmcp):\n%s\ngopls mcp answered:\n%s\ngoplsmcp answered:\n%s", tool, args, diff, peer.Text(), ours.Text())
	}
	return ours
}

// TestVendoredShapes: a vendored module and a `go work vendor` workspace,
// with an empty module cache, answer from vendor/ as gopls mcp does — no
// diagnostics, no "missing from the module cache" hint, the dependency's
// references and API found.
func TestVendoredShapes(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(*testing.T) string
		dir  string // of the module, in the root
	}{
		{"module", vendoredModule, ""},
		{"go.work", vendoredWorkspace, "app/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startShape(t, tt.make(t), emptyCacheEnv(t))
			res := s.ask(t, "go_workspace", `{}`)
			if strings.Contains(res.Text(), "module cache") {
				t.Errorf("go_workspace of a vendored workspace speaks of the module cache:\n%s", res.Text())
			}
			res = s.ask(t, "go_diagnostics", `{}`)
			if strings.Contains(res.Text(), "module cache") {
				t.Errorf("go_diagnostics of a vendored workspace speaks of the module cache:\n%s", res.Text())
			}
			s.ask(t, "go_symbol_references", `{"file":"$WORKDIR/`+tt.dir+`main.go","symbol":"Newer"}`)
			s.ask(t, "go_symbol_references", `{"file":"$WORKDIR/`+tt.dir+`main.go","symbol":"semver.Compare"}`)
			s.ask(t, "go_package_api", `{"packagePaths":["golang.org/x/mod/semver"]}`)
			res, err := s.ours.CallTool(testCtx(t), "go_definition", map[string]any{"file": tt.dir + "main.go", "symbol": "semver.Compare"})
			if err != nil || res.IsError || !strings.Contains(res.Text(), "vendor/golang.org/x/mod/semver/semver.go") {
				t.Errorf("go_definition of semver.Compare = %v %s; want its declaration in vendor/", err, res.Text())
			}
		})
	}
}

// TestInconsistentVendor: a vendor/modules.txt that go.mod no longer
// matches gets one sentence that names the command that fixes it.
func TestInconsistentVendor(t *testing.T) {
	for _, tt := range []struct {
		name, fix string
		make      func(*testing.T) string
		modules   string // vendor/modules.txt, in the root
	}{
		{"module", "go mod vendor", vendoredModule, "vendor/modules.txt"},
		{"go.work", "go work vendor", vendoredWorkspace, "vendor/modules.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := tt.make(t)
			p := filepath.Join(root, tt.modules)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), "v0.38.0", "v0.37.0")), 0o644); err != nil {
				t.Fatal(err)
			}
			s := startShape(t, root, emptyCacheEnv(t))
			ctx := testCtx(t)
			for _, tool := range []string{"go_workspace", "go_diagnostics"} {
				peer, _ := s.peer.CallTool(ctx, tool, map[string]any{})
				ours, err := s.ours.CallTool(ctx, tool, map[string]any{})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: gopls mcp:\n%s\ngoplsmcp:\n%s", tool, peer.Text(), ours.Text())
				if !strings.Contains(ours.Text(), tt.fix) {
					t.Errorf("%s does not name %s:\n%s", tool, tt.fix, ours.Text())
				}
			}
		})
	}
}

// writeShape writes files (name → content) into a new root.
func writeShape(t *testing.T, files map[string]string) string {
	t.Helper()
	root := realTempDir(t)
	for name, data := range files {
		writeWorkspaceFile(t, root, name, []byte(data))
	}
	return root
}

// TestNewerGo: a go.mod that needs a newer Go than the installed one,
// offline, gets one sentence naming both versions and what to install, on
// every answer that the refused load empties, and gopls keeps running.
func TestNewerGo(t *testing.T) {
	root := writeShape(t, map[string]string{
		"go.mod":  "module example.com/future\n\ngo 1.99\n",
		"main.go": "package main\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n\nfunc main() { println(Hello()) }\n",
	})
	st := startStackOf(t, root, stackConfig{})
	pid := st.lsp.PID()
	ctx := testCtx(t)
	want := regexp.MustCompile(`go\.mod requires go 1\.99 but the installed Go is go1\.\d+(\.\d+)?, and goplsmcp does not download toolchains: install Go 1\.99 or newer`)
	for _, call := range []struct {
		tool    string
		args    map[string]any
		isError bool
	}{
		{"go_workspace", map[string]any{}, false},
		{"go_diagnostics", map[string]any{}, false},
		{"go_symbol_references", map[string]any{"file": "main.go", "symbol": "Hello"}, true},
		{"go_diagnostics", map[string]any{}, false},
	} {
		res, err := st.client.CallTool(ctx, call.tool, call.args)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != call.isError || !want.MatchString(res.Text()) {
			t.Errorf("%s (error %v): %s\nwant the error %v and a sentence matching %s", call.tool, res.IsError, res.Text(), call.isError, want)
		}
	}
	if got := st.lsp.PID(); got != pid {
		t.Errorf("gopls was restarted (pid %d, then %d): a refused load must not look like a crash", pid, got)
	}
}

// TestBuildTagsFromGOFLAGS: GOFLAGS=-tags=... in goplsmcp's environment
// reaches gopls's go command, so symbols in the tagged files resolve, as
// for gopls mcp run with the same environment.
func TestBuildTagsFromGOFLAGS(t *testing.T) {
	t.Setenv("GOFLAGS", "-tags=special")
	root := writeShape(t, map[string]string{
		"go.mod":     "module example.com/tagged\n\ngo 1.26\n",
		"main.go":    "package main\n\nfunc main() { println(Tagged()) }\n",
		"special.go": "//go:build special\n\npackage main\n\n// Tagged is built only with -tags=special.\nfunc Tagged() int { return 1 }\n",
	})
	s := startShape(t, root, []string{"GOPROXY=off", "GOTOOLCHAIN=local"})
	s.ask(t, "go_diagnostics", `{}`)
	s.ask(t, "go_symbol_references", `{"file":"$WORKDIR/main.go","symbol":"Tagged"}`)
	s.ask(t, "go_symbol_references", `{"file":"$WORKDIR/special.go","symbol":"Tagged"}`)
	res, err := s.ours.CallTool(testCtx(t), "go_definition", map[string]any{"file": "main.go", "symbol": "Tagged"})
	if err != nil || res.IsError || !strings.Contains(res.Text(), "special.go") {
		t.Errorf("go_definition of Tagged = %v %s; want special.go", err, res.Text())
	}
}

// TestCgo: a package that imports "C" answers for its Go parts with and
// without a C compiler, as gopls mcp does; without one, go_diagnostics
// says what cannot be checked.
func TestCgo(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/cgo\n\ngo 1.26\n",
		"c.go": "package main\n\n// #include <stdlib.h>\n// static int twice(int x) { return 2 * x; }\nimport \"C\"\n\n" +
			"// Twice doubles n in C.\nfunc Twice(n int) int { return int(C.twice(C.int(n))) }\n",
		"main.go": "package main\n\n// Plain is Go only.\nfunc Plain() int { return Twice(2) }\n\nfunc main() { println(Plain()) }\n",
	}
	for _, tt := range []struct {
		name string
		env  []string
	}{
		{"with a C compiler", []string{"GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=1"}},
		{"without a C compiler", []string{"GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=1", "CC=goplsmcp-no-such-cc"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "with a C compiler" {
				if _, err := exec.LookPath("cc"); err != nil {
					t.Skip("no C compiler (cc) on PATH")
				}
			}
			s := startShape(t, writeShape(t, files), tt.env)
			s.ask(t, "go_symbol_references", `{"file":"$WORKDIR/main.go","symbol":"Plain"}`)
			s.ask(t, "go_symbol_references", `{"file":"$WORKDIR/main.go","symbol":"Twice"}`)
			res, err := s.ours.CallTool(testCtx(t), "go_diagnostics", map[string]any{})
			if err != nil || res.IsError {
				t.Fatalf("go_diagnostics: %v %s", err, res.Text())
			}
			const hint = "no C compiler (goplsmcp-no-such-cc) was found, so the cgo parts (C.…) cannot be checked"
			if noCC := strings.Contains(strings.Join(tt.env, " "), "no-such-cc"); noCC != strings.Contains(res.Text(), hint) {
				t.Errorf("go_diagnostics %s:\n%s\nwant the sentence %q: %v", tt.name, res.Text(), hint, noCC)
			}
			if strings.Contains(res.Text(), "undefined: C.") && !strings.Contains(res.Text(), "undefined: C.twice; "+hint) {
				t.Errorf("go_diagnostics: the errors of the cgo parts do not say why:\n%s", res.Text())
			}
		})
	}
}

// TestPackagesDriver: with GOPACKAGESDRIVER set (as Bazel users have it)
// to the small driver in testdata/driver, gopls loads the workspace
// through it, and definitions and references answer as gopls mcp's do.
func TestPackagesDriver(t *testing.T) {
	driver := filepath.Join(realTempDir(t), "driver")
	build := exec.Command("go", "build", "-o", driver, "./testdata/driver")
	build.Dir = ".."
	build.Env = append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the driver: %v\n%s", err, out)
	}
	root := writeShape(t, map[string]string{
		"go.mod":       "module example.com/driven\n\ngo 1.26\n",
		"lib/lib.go":   "package lib\n\n// Answer is the answer.\nfunc Answer() int { return 42 }\n",
		"main.go":      "package main\n\nimport \"example.com/driven/lib\"\n\nfunc main() { println(lib.Answer()) }\n",
		"other/use.go": "package other\n\nimport \"example.com/driven/lib\"\n\n// Twice is twice the answer.\nfunc Twice() int { return 2 * lib.Answer() }\n",
	})
	log := filepath.Join(realTempDir(t), "driver.log")
	s := startShape(t, root, []string{"GOPROXY=off", "GOTOOLCHAIN=local", "GOPACKAGESDRIVER=" + driver, "DRIVER_LOG=" + log})
	s.ask(t, "go_symbol_references", `{"file":"$WORKDIR/lib/lib.go","symbol":"Answer"}`)
	s.ask(t, "go_symbol_references", `{"file":"$WORKDIR/main.go","symbol":"lib.Answer"}`)
	s.ask(t, "go_diagnostics", `{}`)
	res, err := s.ours.CallTool(testCtx(t), "go_definition", map[string]any{"file": "other/use.go", "symbol": "lib.Answer"})
	if err != nil || res.IsError || !strings.Contains(res.Text(), "lib/lib.go:4:6") {
		t.Errorf("go_definition of lib.Answer = %v %s; want lib/lib.go:4:6", err, res.Text())
	}
	if data, err := os.ReadFile(log); err != nil || len(data) == 0 {
		t.Errorf("the driver was never run (%v): GOPACKAGESDRIVER did not reach gopls", err)
	}
}
