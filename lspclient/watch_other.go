//go:build !linux

package lspclient

import (
	"errors"
	"os"
	"time"
)

// newFSWatch has no kernel watcher off Linux: "auto" uses the poller.
func newFSWatch() (fsWatch, error) { return nil, errors.New("inotify is only on Linux") }

// singleLink is not asked off Linux: the poller vouches for no directory.
func singleLink(os.FileInfo) bool { return false }

// changeTime is not used off Linux: size, modification time and identity
// make the stamp.
func changeTime(os.FileInfo) time.Time { return time.Time{} }
