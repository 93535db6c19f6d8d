package bridge_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// olderGo returns the GOROOT of a Go older than the one running the
// tests (a Go 1.26, which make names in GOPLSMCP_TEST_OLDGO: the
// installed one, or one it fetched), for the tests of what a user with an
// older Go on PATH sees. The test is skipped when there is none.
func olderGo(t *testing.T) string {
	t.Helper()
	goroot := os.Getenv("GOPLSMCP_TEST_OLDGO")
	if goroot == "" {
		t.Skip("GOPLSMCP_TEST_OLDGO names no Go older than the one running the tests (make test sets it)")
	}
	return goroot
}

// TestOfflineToolchain: with an older Go first on PATH, a GOTOOLCHAIN
// naming a toolchain the module cache holds is what gopls's go command
// runs offline, so a module asking for that Go loads; one naming a
// toolchain that is nowhere here is refused in one sentence that names
// it, in go_workspace and in the error of every call that needs the
// load.
func TestOfflineToolchain(t *testing.T) {
	old := olderGo(t)
	// The Go running the tests, as a toolchain of the module cache (make
	// fetches it so when the installed Go is older).
	toolchain := runtime.Version()
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cached := filepath.Join(strings.TrimSpace(string(modcache)), "golang.org", "toolchain@v0.0.1-"+toolchain+"."+runtime.GOOS+"-"+runtime.GOARCH)
	if _, err := os.Stat(cached); err != nil {
		t.Skipf("%s is not in the module cache (%v)", toolchain, err)
	}
	t.Setenv("PATH", filepath.Join(old, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	goVersion := exec.Command("go", "env", "GOVERSION")
	goVersion.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := goVersion.Output()
	if err != nil {
		t.Fatal(err)
	}
	local := strings.TrimSpace(string(out))
	const module = "module example.com/m\n\ngo 1.27\n"
	const code = "package m\n\nvar X int = \"s\"\n"

	t.Run("in the module cache", func(t *testing.T) {
		t.Setenv("GOTOOLCHAIN", toolchain)
		root := realTempDir(t)
		writeWorkspaceFile(t, root, "go.mod", []byte(module))
		writeWorkspaceFile(t, root, "m.go", []byte(code))
		c := startStackOf(t, root, stackConfig{}).client
		ctx := testCtx(t)
		res, err := c.CallTool(ctx, "go_workspace", map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("go_workspace: %v %s", err, res.Text())
		}
		for _, want := range []string{" with " + toolchain + "\n", "example.com/m: go.mod, go 1.27\npackages: 1\n"} {
			if !strings.Contains(res.Text(), want) {
				t.Errorf("go_workspace answered\n%s\nwant it to contain %q", res.Text(), want)
			}
		}
		res, err = c.CallTool(ctx, "go_diagnostics", map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("go_diagnostics: %v %s", err, res.Text())
		}
		want := "m.go: 1 error\n3:13: cannot use \"s\" (untyped string constant) as int value in variable declaration"
		if diff := cmp.Diff(want, res.Text()); diff != "" {
			t.Errorf("go_diagnostics (-want +got):\n%s", diff)
		}
	})

	t.Run("nowhere", func(t *testing.T) {
		// A release that will never be: neither on PATH nor in the
		// module cache, and the module proxy is never asked.
		const absent = "go1.27.999"
		t.Setenv("GOTOOLCHAIN", absent)
		root := realTempDir(t)
		writeWorkspaceFile(t, root, "go.mod", []byte(module))
		writeWorkspaceFile(t, root, "m.go", []byte(code))
		st := startStackOf(t, root, stackConfig{})
		c := st.client
		ctx := testCtx(t)
		const sentence = "GOTOOLCHAIN=go1.27.999 names a Go toolchain that is neither on PATH nor in the module cache, and goplsmcp does not download toolchains: fetch it once with `GOTOOLCHAIN=go1.27.999 go version` (or restart goplsmcp with --allow-network)"
		res, err := c.CallTool(ctx, "go_workspace", map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("go_workspace: %v %s", err, res.Text())
		}
		want := "root: $ROOT\ngopls $GOPLS with " + local + "\nbuild: none\nmodules:\n  example.com/m: go.mod, go 1.27\n    " + sentence +
			"\npackages: 0\nload failed: " + sentence + "\nopen buffers: 0"
		gopls := st.lsp.GoplsBuild()
		got := strings.NewReplacer(root, "$ROOT", "gopls "+gopls.Version+" (built with "+gopls.GoVersion+")", "gopls $GOPLS").Replace(res.Text())
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("go_workspace (-want +got):\n%s", diff)
		}
		res, err = c.CallTool(ctx, "go_diagnostics", map[string]any{})
		if err != nil || !res.IsError || !strings.HasSuffix(res.Text(), "; "+sentence) {
			t.Errorf("go_diagnostics: %v, error %v %q; want a tool error ending with the sentence", err, res.IsError, res.Text())
		}
	})
}
