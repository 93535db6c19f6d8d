package visible_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/visible"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// TestJSON checks that every string of a JSON text, keys included, is
// shown with stand-ins, that the rest stays byte for byte, and that the
// result is valid JSON of the same shape.
func TestJSON(t *testing.T) {
	v := map[string]any{
		"a\x1b[2J": []any{"\x00\x07\x7f\u009b\r", "plain \"quoted\" <b>", 1.5, true, nil, "line\n\ttab"},
		"bad":      "x\xffy",
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := visible.JSON(data)
	var back any
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	want := map[string]any{
		"a␛[2J": []any{`␀␇␡\u009b␍`, "plain \"quoted\" <b>", 1.5, true, nil, "line\n\ttab"},
		"bad":   "x\uFFFDy",
	}
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	clean := []byte(`{"a": ["b", "c\n"], "d": 1}`)
	if got := visible.JSON(clean); string(got) != string(clean) {
		t.Errorf("clean JSON changed: %s", got)
	}
}

type out struct {
	Text string `json:"text"`
}

func (o *out) Render() string { return "R:" + o.Text }

// TestTools checks the middleware's three channels: text, structured
// content and errors, an mcp.Error keeping its code and an internal error
// still found through the wrap.
func TestTools(t *testing.T) {
	res, err := visible.Tools(context.Background(), "t", func(context.Context) (any, error) { return &out{Text: "\x1b]52;c;QQ==\x07"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.(mcp.Renderer).Render(), "R:␛]52;c;QQ==␇"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	data, _ := json.Marshal(res)
	if got, want := string(data), `{"text":"␛]52;c;QQ==␇"}`; got != want {
		t.Errorf("structured %s, want %s", got, want)
	}
	inner := mcp.InternalError(errors.New("boom\x1b[2J"))
	_, err = visible.Tools(context.Background(), "t", func(context.Context) (any, error) { return nil, inner })
	if err == nil || err.Error() != "boom␛[2J" || !errors.Is(err, inner) {
		t.Errorf("error %v, want boom␛[2J wrapping the internal error", err)
	}
	h := visible.Resource(func(context.Context) (string, error) {
		return "", &mcp.Error{Code: -32602, Message: "bad \x07"}
	})
	var rpc *mcp.Error
	if _, err := h(context.Background()); !errors.As(err, &rpc) || rpc.Code != -32602 || rpc.Message != "bad ␇" {
		t.Errorf("resource error %v, want code -32602 and bad ␇", err)
	}
}

// TestPrompt checks that a prompt's messages are shown with stand-ins.
func TestPrompt(t *testing.T) {
	h := visible.Prompt(func(context.Context, map[string]string) (*mcp.PromptResult, error) {
		return &mcp.PromptResult{Description: "d\x1b", Messages: []mcp.PromptMessage{mcp.UserText("file\x1b[2J.go\n")}}, nil
	})
	res, err := h(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &mcp.PromptResult{Description: "d␛", Messages: []mcp.PromptMessage{mcp.UserText("file␛[2J.go\n")}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("prompt (-want +got):\n%s", diff)
	}
}
