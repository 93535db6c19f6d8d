//go:build !linux

package lspclient

// newFSWatch has no watcher off Linux: open documents are checked with
// stat at each barrier, and other files reach gopls when a call names them.
func newFSWatch() (fsWatch, error) { return nil, nil }
