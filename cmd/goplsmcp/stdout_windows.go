package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// reserveStdout returns a private copy of stdout for the protocol and points
// the standard output handle, and os.Stdout, at stderr, so that stray writes
// cannot corrupt the message stream. Writes to an *os.File are not
// translated on Windows: the protocol's "\n" stays one byte.
func reserveStdout() (*os.File, error) {
	self := windows.CurrentProcess()
	var dup windows.Handle
	if err := windows.DuplicateHandle(self, windows.Handle(os.Stdout.Fd()), self, &dup, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return nil, err
	}
	if err := windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.Handle(os.Stderr.Fd())); err != nil {
		windows.CloseHandle(dup)
		return nil, err
	}
	os.Stdout = os.Stderr
	return os.NewFile(uintptr(dup), "protocol-stdout"), nil
}
