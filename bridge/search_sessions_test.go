package bridge_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSearchSameFromTwoSessions: on GOROOT/src, where "Serve" matches far
// more than gopls's 100, two sessions (two gopls) answer the same search
// byte for byte, and say that gopls's answer was cut and how to narrow it.
func TestSearchSameFromTwoSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("loads GOROOT/src twice")
	}
	src := filepath.Join(goEnv(t, "GOROOT"), "src")
	var answers [2]string
	for i := range answers {
		c := startStack(t, src)
		res, err := c.CallTool(testCtx(t), "go_search", map[string]any{"query": "Serve"})
		if err != nil || res.IsError {
			t.Fatalf("go_search Serve on GOROOT/src: %v %s", err, res.Text())
		}
		answers[i] = res.Text() + "\n" + string(res.StructuredContent)
	}
	if diff := cmp.Diff(answers[0], answers[1]); diff != "" {
		t.Errorf("two sessions answer go_search differently (-first +second):\n%s", diff)
	}
	if !strings.Contains(answers[0], "a more specific query") {
		t.Errorf("go_search Serve on GOROOT/src does not say gopls's answer was cut:\n%.500s", answers[0])
	}
}
