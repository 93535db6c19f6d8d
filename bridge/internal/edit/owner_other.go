//go:build !unix

package edit

import (
	"io/fs"
	"os"
)

// owner is unknown on this system: files keep the owner a rename gives.
type owner struct{}

func ownerOf(fs.FileInfo) (*owner, uint64) { return nil, 1 }

func (*owner) keep(*os.File) error { return nil }
