package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// TestMakesOverlay checks which calls the gate treats as adding unsaved
// text: file together with non-empty text, and nothing else, decided from
// the decoded arguments whatever the JSON's spelling.
func TestMakesOverlay(t *testing.T) {
	for args, want := range map[string]bool{
		`{"file":"a.go","text":"package a"}`:            true,
		`{"text":"package a","file":"a.go","line":1}`:   true,
		`{"file":"a.go","\u0074ext":"package a"}`:       true,
		`{"\u0066ile":"a.go","text":"\u0070ackage a"}`:  true,
		`{"file":"a.go"}`:                               false,
		`{"text":"package scratch"}`:                    false,
		`{"file":"a.go","text":""}`:                     false,
		`{"file":"a.go","symbol":"text","name":"text"}`: false,
		`{"uri":"file:///r/a.go","text":"package a"}`:   false,
	} {
		var in DescribeInput
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			t.Fatal(err)
		}
		if got := makesOverlay(&in); got != want {
			t.Errorf("makesOverlay(%s) = %v, want %v", args, got, want)
		}
	}
	// go_diagnostics's changes give unsaved text for several files.
	if in := (&DiagnosticsInput{Changes: []Change{{File: "a.go", Text: "package a"}}}); !makesOverlay(in) {
		t.Errorf("makesOverlay(go_diagnostics with changes) = false, want true")
	}
	for _, in := range []any{&SearchInput{Query: "text"}, &DiagnosticsInput{Files: []string{"a.go"}}, nil} {
		if makesOverlay(in) {
			t.Errorf("makesOverlay(%T) = true for a call without file and text", in)
		}
	}
}

// TestEveryOverlayIsSeen checks, for every tool whose arguments take file
// and text, that the gate sees a call giving both as adding an overlay:
// the tool's input type must carry Doc's method (an input embedding two
// of them would silently lose it). The keys are escaped, as a client may
// send them.
func TestEveryOverlayIsSeen(t *testing.T) {
	b := &Bridge{root: t.TempDir(), log: slog.New(slog.DiscardHandler), sessions: map[string]*sessionState{}}
	b.initReads()
	b.gate.init()
	s := mcp.NewServer("goplsmcp", "test", nil)
	if err := b.Register(s); err != nil {
		t.Fatal(err)
	}
	// Outermost, so that no tool runs: it records what the gate would
	// decide, and stops.
	var overlay bool
	errStop := errors.New("stopped before the tool")
	s.AddToolMiddleware(func(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
		overlay = makesOverlay(mcp.ToolInput(ctx))
		return nil, errStop
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_ = s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	c := mcp.NewClient(outR, inW)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Initialize(ctx, "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Properties map[string]struct{ Type string }
				Required   []string
			}
		}
	}
	if err := c.Call(ctx, "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tool := range list.Tools {
		props := tool.InputSchema.Properties
		if _, ok := props["file"]; !ok {
			continue
		}
		if _, ok := props["text"]; !ok {
			continue
		}
		members := []string{`"\u0066ile":"a.go"`, `"\u0074ext":"package a"`}
		for _, req := range tool.InputSchema.Required {
			value := map[string]string{"string": `"x"`, "integer": "0", "number": "0", "boolean": "false", "array": "[]", "object": "{}"}[props[req].Type]
			members = append(members, strconv.Quote(req)+":"+value)
		}
		overlay = false
		res, err := s.CallTool(ctx, tool.Name, json.RawMessage("{"+strings.Join(members, ",")+"}"))
		if err != nil || !res.IsError || res.Text() != errStop.Error() {
			t.Errorf("%s: the call did not reach the gate: %v %v", tool.Name, res, err)
			continue
		}
		if !overlay {
			t.Errorf("%s: a call with file and text is not seen as adding an overlay", tool.Name)
		}
		checked++
	}
	t.Logf("%d tools take file and text", checked)
	if checked < 10 {
		t.Errorf("only %d tools take file and text; the schema listing is not what this test expects", checked)
	}
}
