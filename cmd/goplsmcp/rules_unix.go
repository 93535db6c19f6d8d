//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"
)

// linkCount is the number of hard links of the open file f, whose Stat is
// info.
func linkCount(f *os.File, info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
