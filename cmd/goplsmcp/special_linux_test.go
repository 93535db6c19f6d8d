package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// specialBound is how long the load and a call may take with a special
// file in the workspace. A hang is what is tested against, so it is
// generous for a loaded machine; and short, because a regression that
// reads /dev/urandom without end grows the go command's memory meanwhile.
const specialBound = 30 * time.Second

// TestSpecialFiles puts in a package a Go file that links to something
// that is not a regular file — gopls's or the go command's own standard
// streams, devices that never end, a socket, a FIFO no one writes — and
// checks that the load ends and calls answer, about that package and
// another, under each watcher.
func TestSpecialFiles(t *testing.T) {
	targets := []struct {
		name   string
		target func(t *testing.T) string
	}{
		{"proc-self-fd-0", fixed("/proc/self/fd/0")},
		{"proc-self-fd-1", fixed("/proc/self/fd/1")},
		{"proc-self-fd-2", fixed("/proc/self/fd/2")},
		{"dev-stdin", fixed("/dev/stdin")},
		{"dev-zero", fixed("/dev/zero")},
		{"dev-urandom", fixed("/dev/urandom")},
		{"socket", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "s.sock")
			l, err := net.Listen("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return path
		}},
		{"fifo", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}},
	}
	for _, watch := range []string{"inotify", "poll"} {
		for _, tc := range targets {
			t.Run(watch+"/"+tc.name, func(t *testing.T) {
				root := exampleRoot(t)
				if err := os.Symlink(tc.target(t), filepath.Join(root, "shapes", "x.go")); err != nil {
					t.Fatal(err)
				}
				s := startSession(t, "--root", root, "--gopls", goplsPath(t), "--watch", watch,
					"--load-timeout", specialBound.String(), "--timeout", specialBound.String())
				// The first call waits for the load.
				if text, isErr := toolWithin(t, s, "go_search", `{"query":"Rect"}`); isErr || !strings.Contains(text, "struct Rect") {
					t.Errorf("go_search Rect: want struct Rect, got (error %v) %q", isErr, text)
				}
				if text, isErr := toolWithin(t, s, "go_describe", `{"file":"main.go","line":13,"column":23}`); isErr || !strings.Contains(text, "Shape") {
					t.Errorf("go_describe in main.go: want Shape, got (error %v) %q", isErr, text)
				}
				if _, isErr := toolWithin(t, s, "go_diagnostics", `{}`); isErr {
					t.Errorf("go_diagnostics: an error")
				}
			})
		}
	}
}

// fixed is a target that exists already.
func fixed(path string) func(*testing.T) string {
	return func(*testing.T) string { return path }
}

// toolWithin calls a tool and fails the test unless it answers within
// specialBound.
func toolWithin(t *testing.T, s *session, name, args string) (text string, isError bool) {
	t.Helper()
	s.nextID++
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, s.nextID, name, args))
	deadline := time.NewTimer(specialBound)
	defer deadline.Stop()
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("%s: goplsmcp's stdout ended", name)
			}
			var m struct {
				ID     json.RawMessage
				Result struct {
					Content []struct{ Text string }
					IsError bool
				}
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%s: a line that is not JSON: %.300q", name, line)
			}
			if string(m.ID) != fmt.Sprint(s.nextID) {
				continue // a notification
			}
			if len(m.Result.Content) == 0 {
				t.Fatalf("%s: not a tool result: %.300s", name, line)
			}
			return m.Result.Content[0].Text, m.Result.IsError
		case <-deadline.C:
			t.Fatalf("%s %s: no answer within %v", name, args, specialBound)
		}
	}
}
