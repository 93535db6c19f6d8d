//go:build windows

package edit

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// The lock is on one byte far past the end of the journal: Windows locks
// are mandatory, and one on the content would block reading it.
const lockOffsetHigh = 0x7fffffff

// lockJournal takes the journal's lock, waiting for it.
func lockJournal(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0,
		&windows.Overlapped{OffsetHigh: lockOffsetHigh})
}

// tryLockJournal takes the journal's lock if no process holds it.
func tryLockJournal(f *os.File) (bool, error) {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0,
		&windows.Overlapped{OffsetHigh: lockOffsetHigh})
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

// syncDir does nothing: Windows makes a file's name durable with it.
func syncDir(string) error { return nil }
