package lspclient

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLocateOn runs the rules of every system on this one: Windows has no
// execute bits and names programs .exe, so there --gopls takes any regular
// file (adding .exe to a path that names none) and gopls.exe is looked
// for beside goplsmcp.exe; elsewhere a gopls needs an execute bit and is
// named gopls.
func TestLocateOn(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("gopls"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unix := file("unix/gopls", 0o755)
	plain := file("plain/gopls", 0o644)
	win := file("win/gopls.exe", 0o644)
	winBare := filepath.Join(dir, "win", "gopls")
	tests := []struct {
		name     string
		explicit string
		goos     string
		self     string // goplsmcp's own path
		want     string // "" for ErrGoplsNotFound
		execBits bool   // the case needs a file system with execute bits
	}{
		{"linux: --gopls with an execute bit", unix, "linux", "", unix, true},
		{"linux: --gopls without one", plain, "linux", "", "", false},
		{"linux: --gopls adds no .exe", winBare, "linux", "", "", false},
		{"darwin: --gopls without an execute bit", plain, "darwin", "", "", false},
		{"windows: --gopls needs no execute bit", win, "windows", "", win, false},
		{"windows: --gopls without .exe", plain, "windows", "", plain, false},
		{"windows: --gopls adds .exe", winBare, "windows", "", win, false},
		{"windows: --gopls a directory", dir, "windows", "", "", false},
		{"windows: --gopls missing", filepath.Join(dir, "none", "gopls"), "windows", "", "", false},
		{"linux: gopls beside goplsmcp", "", "linux", filepath.Join(dir, "unix", "goplsmcp"), unix, true},
		{"linux: gopls.exe beside goplsmcp is not it", "", "linux", filepath.Join(dir, "win", "goplsmcp"), "", false},
		{"linux: gopls beside goplsmcp without an execute bit", "", "linux", filepath.Join(dir, "plain", "goplsmcp"), "", false},
		{"windows: gopls.exe beside goplsmcp.exe", "", "windows", filepath.Join(dir, "win", "goplsmcp.exe"), win, false},
		{"windows: gopls without .exe beside goplsmcp.exe is not it", "", "windows", filepath.Join(dir, "plain", "goplsmcp.exe"), "", false},
	}
	noPath := func(string) (string, error) { return "", exec.ErrNotFound }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.execBits && runtime.GOOS == "windows" {
				t.Skip("this file system has no execute bits")
			}
			got, err := locate(tt.explicit, tt.goos, tt.self, noPath)
			if tt.want == "" {
				if !errors.Is(err, ErrGoplsNotFound) {
					t.Errorf("locate = %q, %v; want ErrGoplsNotFound", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("locate = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestLocateNames checks that the error names the places looked at, with
// the system's name of gopls.
func TestLocateNames(t *testing.T) {
	noPath := func(string) (string, error) { return "", exec.ErrNotFound }
	for goos, name := range map[string]string{"linux": "put gopls beside", "windows": "put gopls.exe beside"} {
		_, err := locate("", goos, filepath.Join(t.TempDir(), "goplsmcp"), noPath)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("on %s: locate error %v; want it to say %q", goos, err, name)
		}
	}
}
