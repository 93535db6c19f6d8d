//go:build !unix

package edit

import (
	"io/fs"
	"os"
)

// PrivateFile: on this system a file's owner and mode say nothing that
// can be checked here; every file passes (see private_unix.go).
func PrivateFile(fi fs.FileInfo, typ fs.FileMode) error { return nil }

// PrivateDir: as PrivateFile.
func PrivateDir(dir string) error { return nil }

// openNoFollow opens path to read and write.
func openNoFollow(path string) (*os.File, error) { return os.OpenFile(path, os.O_RDWR, 0) }
