package lspclient

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGoplsMessageLevels checks the levels gopls's window/logMessage
// texts are logged and handed on at: their own in OnMessage, four below
// in the client's log, and shutdown chatter at debug in both, so that the
// default level (warn for a one-shot call, info for a session) does not
// show it and debug does. The chatter is gopls's own errors' text.
func TestGoplsMessageLevels(t *testing.T) {
	type relayed struct {
		Level slog.Level
		Text  string
	}
	for _, tc := range []struct {
		typ      int
		text     string
		want     slog.Level // handed to OnMessage
		wantLog  slog.Level // in the client's log
		chattery bool
	}{
		// gopls v0.23's last words when a one-shot call's exit meets a
		// diagnosis, as goplsmcp call printed them.
		{1, "warning: while diagnosing orphaned files: session is shut down", slog.LevelDebug, slog.LevelDebug, true},
		{1, "2026/12/07 20:25:09 failed to diagnose: server is shut down", slog.LevelDebug, slog.LevelDebug, true},
		{2, "view is shutdown", slog.LevelDebug, slog.LevelDebug, true},
		// What a user acts on stays at its level.
		{1, "Error loading workspace: packages.Load error: err: exit status 1: stderr: go: go.mod requires go >= 1.99 (running go 1.27.3; GOTOOLCHAIN=local)", slog.LevelError, slog.LevelWarn, false},
		{2, "warning: GOPROXY=off: module lookup disabled", slog.LevelWarn, slog.LevelInfo, false},
		{3, "2026/12/07 20:25:09 Created View (#1)\n\tdirectory=/work/x", slog.LevelInfo, slog.LevelDebug, false},
	} {
		if got := shutdownChatter(tc.text); got != tc.chattery {
			t.Errorf("shutdownChatter(%q) = %v, want %v", tc.text, got, tc.chattery)
		}
		var buf bytes.Buffer
		var got []relayed
		c := &Client{
			log:  slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug - 4})),
			opts: Options{OnMessage: func(level slog.Level, text string) { got = append(got, relayed{level, text}) }},
		}
		c.message(context.Background(), tc.typ, tc.text)
		if diff := cmp.Diff([]relayed{{tc.want, tc.text}}, got); diff != "" {
			t.Errorf("type %d %q: OnMessage (-want +got):\n%s", tc.typ, tc.text, diff)
		}
		if wantLevel := "level=" + tc.wantLog.String(); !strings.HasPrefix(strings.SplitN(buf.String(), " ", 3)[1], wantLevel) {
			t.Errorf("type %d %q: logged %q, want %s", tc.typ, tc.text, buf.String(), wantLevel)
		}
	}
}
