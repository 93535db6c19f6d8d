package lspclient

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrGoplsNotFound is returned by [Locate] when no gopls binary exists in any
// of the places it looks.
var ErrGoplsNotFound = errors.New("gopls not found")

// Locate finds the gopls binary: explicit if given, else "gopls" beside the
// running executable, else "gopls" on PATH. The error names all three places.
func Locate(explicit string) (string, error) {
	if explicit != "" {
		if isExecutable(explicit) {
			return filepath.Abs(explicit)
		}
		return "", fmt.Errorf("%w: --gopls %s is not an executable file", ErrGoplsNotFound, explicit)
	}
	var beside string
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			beside = filepath.Join(filepath.Dir(exe), "gopls")
			if isExecutable(beside) {
				return beside, nil
			}
		}
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return filepath.Abs(p)
	}
	return "", fmt.Errorf("%w: pass --gopls PATH, put gopls beside goplsmcp (%s), or put it on PATH (go install golang.org/x/tools/gopls@latest)",
		ErrGoplsNotFound, beside)
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
