//go:build linux

package main

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestShareModernHandles gives unsaved text in 2026-07-28 requests
// through the shared daemon: its handle serves any client of the same
// user (another stdio process, on a connection of its own), and once the
// daemon has been killed the next call with the handle is answered, by a
// new daemon, with the sentence saying its unsaved text is gone.
func TestShareModernHandles(t *testing.T) {
	sh := newShared(t)
	args := []string{"--root", exampleRoot(t), "--gopls", goplsPath(t)}
	modern := func() *proc {
		cmd := exec.Command(binary, args...)
		cmd.Env = append([]string(nil), sh.env...)
		return startCmd(t, cmd)
	}
	call := func(p *proc, id int, tool, args string) (text string, sc map[string]any, isError bool) {
		t.Helper()
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, id, tool, args, modernMeta))
		m := p.recv()
		res, _ := m["result"].(map[string]any)
		if m["id"] != float64(id) || res == nil {
			t.Fatalf("call %d: %v", id, m)
		}
		sc, _ = res["structuredContent"].(map[string]any)
		return toolText(res), sc, res["isError"] == true
	}
	p1, p2 := modern(), modern()
	text, sc, _ := call(p1, 1, "go_diagnostics", brokenReport)
	handle, _ := sc["handle"].(string)
	if !strings.Contains(text, overlayError) || handle == "" {
		t.Fatalf("unsaved report.go through the daemon: %q, handle %q", text, handle)
	}
	withHandle := fmt.Sprintf(`{"file":"main.go","handle":%q}`, handle)
	if text, _, _ := call(p2, 1, "go_diagnostics", withHandle); !strings.Contains(text, importerError) {
		t.Errorf("another client of the same user with the handle: %q; want main.go's error from the unsaved report.go", text)
	}
	if text, _, _ := call(p2, 2, "go_diagnostics", mainGo); strings.Contains(text, importerError) {
		t.Errorf("a call without the handle sees its unsaved text: %q", text)
	}

	old := sh.waitList("daemon with two sessions", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 2 })[0]
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitDead(20*time.Second, old.PID, old.GoplsPID) {
		t.Fatalf("the killed daemon %d or its gopls %d still runs after 20s", old.PID, old.GoplsPID)
	}
	// Under load the call re-sent to the new daemon is now and then lost
	// a second time, and the proxy says so ("stopped twice ...; call
	// again"); the client then calls again, as told. (The second loss
	// is not understood yet: see the closing note of issue 27.)
	p1.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"go_diagnostics","arguments":%s,%s}}`, withHandle, modernMeta))
	if m := p1.recv(); m["result"] == nil {
		if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(fmt.Sprint(e["message"]), "stopped twice") {
			t.Fatalf("call 2: %v", m)
		}
		t.Logf("call 2 was lost twice on the daemon's restart: %v; calling again", m)
	} else {
		checkLostHandle(t, m)
	}
	text, _, isErr := call(p1, 5, "go_diagnostics", withHandle)
	if !isErr || !strings.Contains(text, "earlier run of this server") || !strings.Contains(text, "give the unsaved text again") {
		t.Errorf("the handle after the daemon restarted: %q, isError %v; want the sentence saying its text is gone", text, isErr)
	}
	// Given again, the text has a new handle on the new daemon.
	_, sc, _ = call(p1, 3, "go_diagnostics", brokenReport)
	again, _ := sc["handle"].(string)
	if text, _, _ := call(p1, 4, "go_diagnostics", fmt.Sprintf(`{"file":"main.go","handle":%q}`, again)); again == "" || again == handle || !strings.Contains(text, importerError) {
		t.Errorf("the text given again: handle %q (was %q), main.go %q", again, handle, text)
	}
}

// checkLostHandle checks an answer to a call with a handle from before the
// daemon's restart.
func checkLostHandle(t *testing.T, m map[string]any) {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	text := toolText(res)
	if res["isError"] != true || !strings.Contains(text, "earlier run of this server") || !strings.Contains(text, "give the unsaved text again") {
		t.Errorf("the handle after the daemon restarted: %q; want the sentence saying its text is gone", text)
	}
}
