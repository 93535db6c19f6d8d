package bridge_test

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"

	"golang.org/x/tools/txtar"
)

// TestOtherBuildFile: a question about a file for another GOOS is
// answered in that file's own build, and leaves the workspace's answers
// as they were, about the build the user builds, as gopls mcp gives them:
// gopls drops the build it made for the file once the call is done.
func TestOtherBuildFile(t *testing.T) {
	root := goosRoot(t)
	st := startStackOf(t, root, stackConfig{})
	s := &shape{root: root, ours: st.client, peer: startGoplsMCP(t, root, nil)}
	ctx := testCtx(t)

	s.ask(t, "go_diagnostics", `{}`)
	// The freebsd file's own build is freebsd's, where X is undefined.
	res, err := s.ours.CallTool(ctx, "go_diagnostics", map[string]any{"files": []string{"p/only_freebsd.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.Text(), "undefined: X [freebsd") {
		t.Errorf("go_diagnostics of p/only_freebsd.go: %q; want use.go's error in the freebsd build", res.Text())
	}
	other := "p/p_windows.go"
	if runtime.GOOS == "windows" {
		other = "p/p_default.go"
	}
	if res, err := s.ours.CallTool(ctx, "go_file_context", map[string]any{"file": other}); err != nil || res.IsError {
		t.Fatalf("go_file_context of %s: %v %v", other, err, res)
	}
	// The workspace is what it was, file by file, as gopls mcp says.
	s.ask(t, "go_diagnostics", `{}`)
	s.ask(t, "go_diagnostics", `{"files":["$WORKDIR/p/use.go"]}`)
	s.ask(t, "go_diagnostics", `{"files":["$WORKDIR/p/bad.go"]}`)
	for _, uri := range st.lsp.OpenDocuments() {
		if strings.HasSuffix(uri, "/only_freebsd.go") || strings.HasSuffix(uri, "/"+filepath.Base(other)) {
			t.Errorf("%s is still open in gopls after the calls about it", uri)
		}
	}

	// Unsaved text for the freebsd file stays open, and gopls's freebsd
	// build with it, until the session closes it: the workspace's answers
	// still leave that build's errors out.
	text, err := os.ReadFile(filepath.Join(root, "p", "only_freebsd.go"))
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.ours.CallTool(ctx, "go_diagnostics", map[string]any{"file": "p/only_freebsd.go", "text": string(text) + "\n// unsaved\n"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.Text(), "undefined: X [freebsd") {
		t.Errorf("go_diagnostics of unsaved p/only_freebsd.go: %q; want use.go's error in the freebsd build", res.Text())
	}
	s.ask(t, "go_diagnostics", `{}`)
	s.ask(t, "go_diagnostics", `{"files":["$WORKDIR/p/use.go"]}`)
}

// TestDiagnosisNamesBuilds checks what a full diagnosis names: gopls
// diagnoses a whole build whichever of its files is named, and naming a
// file open in gopls leaves gopls holding memory for it for good (issue
// 33), so a file of the workspace's build is diagnosed by naming the file
// that names its build, and only a file of another system names itself.
func TestDiagnosisNamesBuilds(t *testing.T) {
	root := goosRoot(t)
	st := startStackOf(t, root, stackConfig{})
	ctx := testCtx(t)
	builds, err := bridge.DiagnosisFiles(ctx, st.bridge)
	if err != nil {
		t.Fatal(err)
	}
	if len(builds) == 0 {
		t.Fatal("no file names the workspace's build")
	}
	// A file of the root's build that does not already name it.
	var file string
	for _, name := range []string{"use.go", "bad.go", "p_default.go"} {
		if p := filepath.Join(root, "p", name); !slices.Contains(builds, lspclient.FileURI(p)) {
			file = p
			break
		}
	}
	got, err := bridge.DiagnosisFiles(ctx, st.bridge, file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(builds, got); diff != "" {
		t.Errorf("diagnosis naming %s (-want +got):\n%s", file, diff)
	}
	other := filepath.Join(root, "p", "only_freebsd.go")
	got, err = bridge.DiagnosisFiles(ctx, st.bridge, file, other)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(slices.Clone(builds), lspclient.FileURI(other)), got); diff != "" {
		t.Errorf("diagnosis naming %s and %s (-want +got):\n%s", file, other, diff)
	}
}

// goosRoot is a copy of testdata/goos.txtar, whose other system is
// freebsd (the test skips on freebsd itself).
func goosRoot(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "freebsd" {
		t.Skip("the fixture's other system is freebsd")
	}
	ar, err := txtar.ParseFile(filepath.Join("..", "testdata", "goos.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root := copyArchive(t, ar)
	return root
}
