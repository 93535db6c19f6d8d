package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// handleServer is a server offering handles, whose "keep" tool keeps its
// text under the call's session id, "peek" shows what the session kept,
// and "forget" forgets the handle it runs under; ended receives the id of
// every session that ends.
func handleServer(t *testing.T, opts HandleOptions) (s *Server, ended chan string) {
	t.Helper()
	s = NewServer("test", "v0", nil)
	var mu sync.Mutex
	kept := map[string]string{}
	ended = make(chan string, 100)
	s.OnSessionEnd(func(id string) {
		mu.Lock()
		delete(kept, id)
		mu.Unlock()
		ended <- id
	})
	type textIn struct {
		Text string `json:"text,omitempty"`
	}
	type keptOut struct {
		Kept    string `json:"kept"`
		Session string `json:"session"`
	}
	add := func(name string, fn func(ctx context.Context, in *textIn) (*keptOut, error)) {
		if err := AddTool(s, Tool{Name: name, Title: name, Description: name, Annotations: readOnlyHints()}, fn); err != nil {
			t.Fatal(err)
		}
	}
	add("keep", func(ctx context.Context, in *textIn) (*keptOut, error) {
		mu.Lock()
		defer mu.Unlock()
		kept[SessionID(ctx)] = in.Text
		KeepState(ctx)
		return &keptOut{Kept: in.Text, Session: SessionID(ctx)}, nil
	})
	add("peek", func(ctx context.Context, in *textIn) (*keptOut, error) {
		mu.Lock()
		defer mu.Unlock()
		return &keptOut{Kept: kept[SessionID(ctx)], Session: SessionID(ctx)}, nil
	})
	add("forget", func(ctx context.Context, in *textIn) (*keptOut, error) {
		ForgetHandle(ctx)
		return &keptOut{Session: SessionID(ctx)}, nil
	})
	opts.Note, opts.Lost = "use it", "keep again"
	s.OfferHandles(opts)
	return s, ended
}

// callHandle makes a modern tools/call and returns its result.
func callHandle(t *testing.T, ps *pipeSession, tool, args string) map[string]any {
	t.Helper()
	ps.send(modernLine(`"c"`, "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args)))
	m := ps.recv()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s %s: %v", tool, args, m)
	}
	return res
}

// structured returns a member of a result's structuredContent.
func structured(res map[string]any, key string) string {
	sc, _ := res["structuredContent"].(map[string]any)
	v, _ := sc[key].(string)
	return v
}

func TestHandles(t *testing.T) {
	s, ended := handleServer(t, HandleOptions{Max: 2, Idle: time.Hour})
	ps := startSession(t, s)
	keep := func(text string) (handle, session string) {
		t.Helper()
		res := callHandle(t, ps, "keep", fmt.Sprintf(`{"text":%q}`, text))
		handle = structured(res, "handle")
		content, _ := res["content"].([]any)
		first, _ := content[0].(map[string]any)
		if handle == "" || first["text"] != fmt.Sprintf(`{
  "kept": %q,
  "session": %q
}`, text, structured(res, "session"))+"\nhandle: "+handle+" (use it)" {
			t.Fatalf("keep: no handle in %v", res)
		}
		return handle, structured(res, "session")
	}
	peek := func(handle string) (kept string, refused string) {
		t.Helper()
		res := callHandle(t, ps, "peek", fmt.Sprintf(`{"handle":%q}`, handle))
		if res["isError"] == true {
			content, _ := res["content"].([]any)
			first, _ := content[0].(map[string]any)
			text, _ := first["text"].(string)
			return "", text
		}
		if res["structuredContent"].(map[string]any)["handle"] != nil {
			t.Errorf("a call under a handle was given one again: %v", res)
		}
		return structured(res, "kept"), ""
	}

	// seen are the sessions ended so far; waitEnd waits for id's end.
	seen := map[string]bool{}
	waitEnd := func(what, id string) {
		t.Helper()
		for !seen[id] {
			seen[within(t, what, ended)] = true
		}
	}
	drain := func() {
		for {
			select {
			case id := <-ended:
				seen[id] = true
			default:
				return
			}
		}
	}

	h1, s1 := keep("one")
	if kept, refused := peek(h1); kept != "one" {
		t.Errorf("peek with the handle: %q %q; want one", kept, refused)
	}
	// Without the handle, a call is a session of its own, as ever.
	res := callHandle(t, ps, "peek", `{}`)
	if structured(res, "kept") != "" || structured(res, "handle") != "" {
		t.Errorf("peek without a handle: %v", res)
	}
	waitEnd("the end of peek's own session", structured(res, "session"))

	// The bound: a third handle forgets the one unused longest (h1 was
	// used after h2 was made).
	h2, s2 := keep("two")
	peek(h1)
	h3, _ := keep("three")
	waitEnd("the evicted session's end", s2)
	if _, refused := peek(h2); !strings.Contains(refused, "is unknown") || !strings.HasSuffix(refused, "keep again") {
		t.Errorf("an evicted handle: %q", refused)
	}
	for _, h := range []string{h1, h3} {
		if kept, refused := peek(h); kept == "" {
			t.Errorf("a kept handle refused: %q", refused)
		}
	}

	// forget ends it once its call has ended.
	drain()
	if seen[s1] {
		t.Fatal("h1's session ended before it was forgotten")
	}
	callHandle(t, ps, "forget", fmt.Sprintf(`{"handle":%q}`, h1))
	waitEnd("the forgotten session's end", s1)
	if _, refused := peek(h1); !strings.Contains(refused, "is unknown") {
		t.Errorf("a forgotten handle: %q", refused)
	}

	// A handle of another run, and one that is not a string.
	epoch, rest, _ := strings.Cut(h3, ".")
	other := strings.Map(func(r rune) rune { return 'f' - r + '0' }, epoch) + "." + rest
	if other == h3 {
		t.Fatal("the other run's epoch is this one's")
	}
	if _, refused := peek(other); !strings.Contains(refused, "earlier run of this server") {
		t.Errorf("a handle of another run: %q", refused)
	}
	if res := callHandle(t, ps, "peek", `{"handle":7}`); res["isError"] != true {
		t.Errorf("a handle that is a number: %v", res)
	}

	// A legacy session has no handle argument, nor is given one.
	ps.initialize(latestVersion)
	ps.send(`{"jsonrpc":"2.0","id":"old","method":"tools/call","params":{"name":"keep","arguments":{"text":"x"}}}`)
	if m := ps.recv(); strings.Contains(fmt.Sprint(m), "handle") {
		t.Errorf("a legacy call was given a handle: %v", m)
	}
	ps.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	if m := ps.recv(); strings.Contains(fmt.Sprint(m), "handle") {
		t.Errorf("legacy tools/list names the handle: %v", m)
	}
}

// TestHandleExpires forgets a handle left idle, and its session with it.
func TestHandleExpires(t *testing.T) {
	s, ended := handleServer(t, HandleOptions{Max: 4, Idle: 20 * time.Millisecond})
	ps := startSession(t, s)
	res := callHandle(t, ps, "keep", `{"text":"x"}`)
	h, id := structured(res, "handle"), structured(res, "session")
	if got := within(t, "the idle handle's end", ended); got != id {
		t.Fatalf("ended %s, want the handle's session %s", got, id)
	}
	res = callHandle(t, ps, "peek", fmt.Sprintf(`{"handle":%q}`, h))
	if data, _ := json.Marshal(res); res["isError"] != true || !strings.Contains(string(data), "is unknown") {
		t.Errorf("an expired handle: %s", data)
	}
}
