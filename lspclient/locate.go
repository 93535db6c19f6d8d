package lspclient

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrGoplsNotFound is returned by [Locate] when no gopls binary exists in any
// of the places it looks.
var ErrGoplsNotFound = errors.New("gopls not found")

// Locate finds the gopls binary: explicit if given, else gopls beside the
// running executable, else gopls on PATH. The error names all three places.
func Locate(explicit string) (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		self = ""
	}
	return locate(explicit, runtime.GOOS, self, exec.LookPath)
}

// locate is Locate on the system goos, for the executable self ("" when
// unknown), with lookPath searching PATH. The system is a parameter so
// that every platform's rules are tested on each.
func locate(explicit, goos, self string, lookPath func(string) (string, error)) (string, error) {
	if explicit != "" {
		if p, ok := runnable(explicit, goos); ok {
			return filepath.Abs(p)
		}
		return "", fmt.Errorf("%w: --gopls %s is not an executable file", ErrGoplsNotFound, explicit)
	}
	name := goplsName(goos)
	var beside string
	if self != "" {
		beside = filepath.Join(filepath.Dir(self), name)
		if p, ok := runnable(beside, goos); ok {
			return p, nil
		}
	}
	// exec.LookPath knows the system's own rules (PATHEXT on Windows).
	if p, err := lookPath("gopls"); err == nil {
		return filepath.Abs(p)
	}
	return "", fmt.Errorf("%w: pass --gopls PATH, put %s beside goplsmcp (%s), or put it on PATH (go install golang.org/x/tools/gopls@%s)",
		ErrGoplsNotFound, name, beside, PinnedGopls)
}

// goplsName is the file name of gopls on goos.
func goplsName(goos string) string {
	if goos == "windows" {
		return "gopls.exe"
	}
	return "gopls"
}

// runnable returns the file that path names as a program to run on goos,
// if it is one. Go reports no execute bits on Windows, so there any
// regular file is, and a path without .exe that names no file names the
// .exe beside it, as a shell there finds it; elsewhere it is a regular
// file with an execute bit.
func runnable(path, goos string) (string, bool) {
	fi, err := os.Stat(path)
	if err == nil && fi.Mode().IsRegular() && (goos == "windows" || fi.Mode().Perm()&0o111 != 0) {
		return path, true
	}
	if goos == "windows" && err != nil && !strings.EqualFold(filepath.Ext(path), ".exe") {
		if fi, err := os.Stat(path + ".exe"); err == nil && fi.Mode().IsRegular() {
			return path + ".exe", true
		}
	}
	return "", false
}
