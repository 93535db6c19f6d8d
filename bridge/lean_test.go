package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Claude Code and Codex give a model structuredContent instead of the
// text, so the JSON must be as lean as the text: at most leanRatio times
// its bytes, compacted. Every answer of the golden archives is measured
// (TestGolden records them): each tool's answers together must keep to
// the ratio, and each answer to the ratio plus leanSlack bytes. The slack
// is the fixed cost of a JSON object (its braces and two or three short
// member names), which decides the ratio of an answer of a few dozen
// bytes and nothing else: "no diagnostics" is 14 bytes, {"files":{}} 12.
const (
	leanRatio = 1.3
	leanSlack = 32
)

// channelBytes adds up the bytes of each tool's answers on both channels.
type channelBytes struct {
	mu         sync.Mutex
	text, json map[string]int
	answers    map[string]int
}

var measured = channelBytes{text: map[string]int{}, json: map[string]int{}, answers: map[string]int{}}

// checkLean records an answer's text and structuredContent, and fails t
// if the JSON is over the bound for one answer.
func checkLean(t *testing.T, name, tool, text string, structured json.RawMessage) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, structured); err != nil {
		t.Fatalf("%s: structuredContent is not JSON: %v", name, err)
	}
	tb, jb := len(text), compact.Len()
	if float64(jb) > leanRatio*float64(tb)+leanSlack {
		t.Errorf("%s: %s's structuredContent is %d bytes, %.2f× its text's %d (at most %.1f× + %d):\n%s\n%s",
			name, tool, jb, float64(jb)/float64(tb), tb, leanRatio, leanSlack, compact.String(), text)
	}
	measured.mu.Lock()
	defer measured.mu.Unlock()
	measured.text[tool] += tb
	measured.json[tool] += jb
	measured.answers[tool]++
}

// checkLeanTools fails t for each tool whose answers' JSON, all together,
// is over leanRatio times their text, and logs the figures.
func checkLeanTools(t *testing.T) {
	t.Helper()
	measured.mu.Lock()
	defer measured.mu.Unlock()
	if len(measured.answers) == 0 {
		t.Fatal("no answers were measured")
	}
	var report strings.Builder
	for _, tool := range sortedKeys(measured.answers) {
		tb, jb := measured.text[tool], measured.json[tool]
		ratio := float64(jb) / float64(tb)
		fmt.Fprintf(&report, "%-22s %3d answers  text %6d  json %6d  %.2f×\n", tool, measured.answers[tool], tb, jb, ratio)
		if ratio > leanRatio {
			t.Errorf("%s: its answers' structuredContent is %.2f× their text (%d against %d bytes), over %.1f×", tool, ratio, jb, tb, leanRatio)
		}
	}
	t.Logf("structuredContent against text, compact bytes:\n%s", report.String())
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
