package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
)

// TestOverlaysNeverMix sends many concurrent calls that each give the same
// file a different unsaved text, with an error on a line of its own, and
// checks that every answer is about its own text: calls that change a
// buffer are serialised per document, from sync to answer.
func TestOverlaysNeverMix(t *testing.T) {
	root := realTempDir(t)
	writeWorkspaceFile(t, root, "go.mod", []byte("module example.com/m\n\ngo 1.26\n"))
	writeWorkspaceFile(t, root, "a/a.go", []byte("package a\n"))
	c := startStack(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const writers = 6
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for round := range 10 {
				// The error is on line 2+w, after w blank lines.
				line := fmt.Sprintf("var V%d%d int = \"x\"", w, round)
				text := "package a\n\n" + strings.Repeat("\n", w) + line + "\n"
				res, err := c.CallTool(ctx, "go_diagnostics", map[string]any{"file": "a/a.go", "text": text, "detailed": true})
				if err != nil || res.IsError {
					t.Errorf("writer %d: %v %s", w, err, res.Text())
					return
				}
				var out bridge.DiagnosticsOutput
				if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
					t.Error(err)
					return
				}
				// The line and its text both come from this call's text:
				// detailed, a diagnostic is line:col-line:col: message
				// (1-based, as go vet prints it), then its source line.
				// It is the edit's own, so marked introduced ("+ ").
				f, _ := out.Files.Get("a/a.go")
				if len(f.At) != 1 || !strings.HasPrefix(f.At[0], fmt.Sprintf("+ %d:", 3+w)) || !strings.HasSuffix(f.At[0], "\n\t"+line) {
					t.Errorf("writer %d round %d: diagnostics %q, want one on line %d: %s", w, round, f.At, 3+w, line)
				}
			}
		})
	}
	wg.Wait()
}
