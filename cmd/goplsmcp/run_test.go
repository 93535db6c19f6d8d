package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string // substring of stdout
		wantErr  string // substring of the error
	}{
		{"help", []string{"--help"}, 0, "Usage:", ""},
		{"help wins over a bad flag", []string{"--bogus", "--help"}, 0, "--root", ""},
		{"version", []string{"--version", "--gopls", "../../bin/gopls"}, 0, "goplsmcp ", ""},
		{"unknown flag", []string{"--bogus"}, 2, "", "flag provided but not defined"},
		{"stray argument", []string{"serve"}, 2, "", `unexpected argument "serve"`},
		{"bad log level", []string{"--log-level", "loud"}, 2, "", "--log-level"},
		{"missing gopls", []string{"--gopls", filepath.Join(t.TempDir(), "gopls")}, 2, "", "gopls not found"},
		{"message cap too small", []string{"--max-message-bytes", "10"}, 2, "", "--max-message-bytes must be at least 1024"},
		{"result cap too small", []string{"--max-result-bytes", "0"}, 2, "", "--max-result-bytes must be at least 1024"},
		{"text cap not positive", []string{"--max-text-chars", "-5"}, 2, "", "--max-text-chars must be at least 1"},
		{"text cap not a number", []string{"--max-text-chars", "lots"}, 2, "", "invalid value"},
		{"unknown watch strategy", []string{"--watch", "fsevents"}, 2, "", "--watch wants one of auto, inotify, poll, off"},
		{"root not a directory", []string{"--gopls", "../../bin/gopls", "--root", "run.go"}, 2, "", "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
			code := 0
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.code
			} else if err != nil {
				code = 1
			}
			if code != tt.wantCode {
				t.Errorf("exit code %d (err %v), want %d", code, err, tt.wantCode)
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tt.wantOut)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v does not contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestCheckRemoteWindows refuses a unix socket address on Windows only.
func TestCheckRemoteWindows(t *testing.T) {
	for _, tt := range []struct {
		remote, goos string
		ok           bool
	}{
		{"unix;/tmp/gopls.sock", "windows", false},
		{"auto", "windows", true},
		{"localhost:37374", "windows", true},
		{"unix;/tmp/gopls.sock", "darwin", true},
		{"unix;/tmp/gopls.sock", "linux", true},
	} {
		if err := checkRemote(tt.remote, tt.goos); (err == nil) != tt.ok {
			t.Errorf("checkRemote(%q, %s) = %v, want ok %v", tt.remote, tt.goos, err, tt.ok)
		}
	}
}

func TestVersionFormat(t *testing.T) {
	var stdout bytes.Buffer
	// bin/gopls itself, whatever gopls the other tests run.
	if err := run(context.Background(), []string{"--version", "--gopls", "../../bin/gopls"}, strings.NewReader(""), &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// bin/gopls is the version go.mod pins.
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "golang.org/x/tools/gopls").Output()
	if err != nil {
		t.Fatalf("the pinned gopls's version: %v", err)
	}
	pinned := strings.TrimSpace(string(out))
	got := strings.TrimSpace(stdout.String())
	if !strings.HasPrefix(got, "goplsmcp ") || !strings.HasSuffix(got, "(gopls "+pinned+")") {
		t.Errorf("--version printed %q, want goplsmcp VERSION (gopls %s)", got, pinned)
	}
}
