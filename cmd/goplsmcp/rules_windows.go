package main

import (
	"io/fs"
	"os"
	"syscall"
)

// linkCount is the number of hard links of the open file f, whose Stat is
// info: Windows keeps it on the handle, not in the FileInfo.
func linkCount(f *os.File, info fs.FileInfo) uint64 {
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d); err != nil {
		return 1
	}
	return uint64(d.NumberOfLinks)
}
