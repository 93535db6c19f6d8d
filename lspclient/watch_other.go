//go:build !linux

package lspclient

import (
	"os"
	"time"
)

// newFSWatch has no watcher off Linux: open documents are checked with
// stat at each barrier, and other files reach gopls when a call names them.
func newFSWatch() (fsWatch, error) { return nil, nil }

// singleLink is never asked off Linux: no directory is watched there.
func singleLink(os.FileInfo) bool { return false }

// changeTime is not used off Linux: size, modification time and identity
// make the stamp.
func changeTime(os.FileInfo) time.Time { return time.Time{} }
