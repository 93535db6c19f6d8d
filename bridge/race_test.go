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
// true while an editor saves one of the files (a comment line prepended to
// what is on disk, as in the issue: 0.27 s into a call), in rounds whose
// save falls at moments spread over the call's duration, so that some fall
// while gopls computes and some while goplsmcp writes. Whatever the
// interleaving, no file is corrupted (every file parses, and the rename is
// in every file or in none) and no save is lost.
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
	// The rename proposed, not applied, measures the call; the saved
	// file is not open in gopls, which reads it from disk.
	began := time.Now()
	if res, err := c.CallTool(ctx, "go_rename_symbol", map[string]any{"file": "base/base.go", "symbol": "Target", "new_name": "Measure"}); err != nil || res.IsError {
		t.Fatalf("rename without apply: %v %v", err, res)
	}
	took := time.Since(began)
	saved := filepath.Join(root, "p50", "p50.go")
	name, saves := "Target", 0
	const rounds = 6
	for round := range rounds {
		at := 270 * time.Millisecond
		if round > 0 {
			at = took * time.Duration(2*round-1) / (2 * rounds)
		}
		line := fmt.Sprintf("// save %d\n", round)
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(at) // the editor's moment, not a wait for a condition
			data, err := os.ReadFile(saved)
			if err == nil {
				err = os.WriteFile(saved, append([]byte(line), data...), 0o644)
			}
			if err != nil {
				t.Error(err)
			}
		}()
		next := fmt.Sprintf("Renamed%d", round)
		res, err := c.CallTool(ctx, "go_rename_symbol", map[string]any{"file": "base/base.go", "symbol": name, "new_name": next, "apply": true})
		if err != nil {
			t.Fatal(err)
		}
		<-done
		saves++
		after := snapshot(t, root)
		for i := range round + 1 {
			if !strings.Contains(after["p50/p50.go"], fmt.Sprintf("// save %d\n", i)) {
				t.Fatalf("round %d: the editor's save %d is lost:\n%s", round, i, after["p50/p50.go"])
			}
		}
		assertParses(t, root)
		renamed := 0
		for f, text := range after {
			switch {
			case strings.Contains(text, next):
				renamed++
			case !res.IsError && f != "go.mod":
				t.Errorf("round %d: the apply succeeded but %s is not renamed:\n%s", round, f, text)
			}
		}
		if res.IsError && renamed > 0 {
			t.Errorf("round %d: the apply failed (%s) but %d files were written", round, res.Text(), renamed)
		}
		if t.Failed() {
			t.FailNow()
		}
		t.Logf("round %d, save at %s: isError=%v (%.120s); %d files renamed", round, at.Round(time.Millisecond), res.IsError, res.Text(), renamed)
		if !res.IsError {
			name = next
		}
	}
	t.Logf("%d rounds over %d packages (a call takes about %s), %d saves, none lost", rounds, n, took.Round(time.Millisecond), saves)
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
