//go:build !unix && !windows

package main

import (
	"io/fs"
	"os"
)

// linkCount is 1 where the system does not say.
func linkCount(f *os.File, info fs.FileInfo) uint64 { return 1 }
