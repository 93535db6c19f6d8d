package bridge_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
)

// TestApplySavedWhileComputing: a file saved after gopls was asked for a
// rename and before its edits are matched with the file's text (here,
// deterministically, right after gopls answered) holds bytes gopls never
// saw. The apply is refused, naming the file; nothing is written, and the
// save is kept as it was.
func TestApplySavedWhileComputing(t *testing.T) {
	root := exampleRoot(t)
	before := snapshot(t, root)
	c, br := startConfigured(t, root, bridge.Config{AllowWrite: true})
	saved := filepath.Join(root, "report", "report.go")
	// A line prepended: every edit gopls computed for the file is now a
	// line off, which applied would corrupt it.
	edited := "// saved by an editor\n" + before["report/report.go"]
	bridge.SetAfterCompute(br, func() {
		if err := os.WriteFile(saved, []byte(edited), 0o644); err != nil {
			t.Error(err)
		}
	})
	ctx := testCtx(t)
	res, err := c.CallTool(ctx, "go_rename_symbol", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape", "new_name": "Figure", "apply": true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text(), "report/report.go changed on disk while gopls computed the edits") ||
		!strings.Contains(res.Text(), "nothing was written") || len(res.StructuredContent) != 0 {
		t.Fatalf("apply of edits computed before a save: isError=%v %s", res.IsError, res.Text())
	}
	want := before
	want["report/report.go"] = edited
	if diff := cmp.Diff(want, snapshot(t, root)); diff != "" {
		t.Errorf("files after the refused apply (-want +got):\n%s", diff)
	}

	// Called again, the rename sees the save and keeps it.
	bridge.SetAfterCompute(br, nil)
	res, err = c.CallTool(ctx, "go_rename_symbol", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape", "new_name": "Figure", "apply": true})
	if err != nil || res.IsError {
		t.Fatalf("apply called again: %v %s", err, res.Text())
	}
	got := snapshot(t, root)["report/report.go"]
	if !strings.HasPrefix(got, "// saved by an editor\n") || !strings.Contains(got, "Figure") {
		t.Errorf("report.go after the second rename:\n%s", got)
	}
	assertParses(t, root)
}

// TestApplyRaceTimed renames a function used by 100 packages with apply:
// true while an editor saves one of the files (a comment line prepended)
// about 0.27 s into the call, as an editor would, at whatever moment that
// falls. Whatever the interleaving, no file is corrupted (every file
// parses, and the rename is in every file or in none but the saved one)
// and the editor's line is never lost.
func TestApplyRaceTimed(t *testing.T) {
	if testing.Short() {
		t.Skip("a 100-package workspace")
	}
	root := realTempDir(t)
	const n = 100
	files := map[string]string{
		"go.mod":       "module example.com/many\n\ngo 1.26\n",
		"base/base.go": "package base\n\n// Target is used by every package.\nfunc Target() int { return 1 }\n",
	}
	for i := range n {
		files[fmt.Sprintf("p%d/p%d.go", i, i)] = fmt.Sprintf("package p%d\n\nimport \"example.com/many/base\"\n\n// F%d adds.\nfunc F%d(a int) int {\n\treturn a + base.Target()\n}\n", i, i, i)
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := startConfigured(t, root, bridge.Config{AllowWrite: true})
	ctx := testCtx(t)
	// Loaded first, so that the call's time is the rename's.
	if res, err := c.CallTool(ctx, "go_describe", map[string]any{"file": "p50/p50.go", "symbol": "F50"}); err != nil || res.IsError {
		t.Fatalf("describe: %v %v", err, res)
	}
	saved := filepath.Join(root, "p50", "p50.go")
	const line = "// saved by an editor while goplsmcp renamed\n"
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(270 * time.Millisecond) // the editor's moment, not a wait for a condition
		data, err := os.ReadFile(saved)
		if err == nil {
			err = os.WriteFile(saved, append([]byte(line), data...), 0o644)
		}
		if err != nil {
			t.Error(err)
		}
	}()
	began := time.Now()
	res, err := c.CallTool(ctx, "go_rename_symbol", map[string]any{"file": "base/base.go", "symbol": "Target", "new_name": "Renamed", "apply": true})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	<-done
	after := snapshot(t, root)
	if !strings.HasPrefix(after["p50/p50.go"], line) {
		t.Errorf("the editor's line is lost:\n%s", after["p50/p50.go"])
	}
	assertParses(t, root)
	renamed := 0
	for name, text := range after {
		if strings.Contains(text, "Renamed") {
			renamed++
		} else if !res.IsError && name != "p50/p50.go" && name != "go.mod" {
			t.Errorf("the apply succeeded but %s is not renamed", name)
		}
	}
	if res.IsError && renamed > 0 {
		t.Errorf("the apply failed (%s) but %d files were written", res.Text(), renamed)
	}
	t.Logf("rename across %d packages took %s; isError=%v (%.200s); %d files renamed", n, took.Round(time.Millisecond), res.IsError, res.Text(), renamed)
}

// assertParses checks that every Go file under root parses.
func assertParses(t *testing.T, root string) {
	t.Helper()
	for name, text := range snapshot(t, root) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		if _, err := parser.ParseFile(token.NewFileSet(), name, text, 0); err != nil {
			t.Errorf("%s is corrupted: %v\n%s", name, err, text)
		}
	}
}
