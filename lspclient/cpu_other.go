//go:build unix && !linux

package lspclient

// cpuTicks is unknown where reading another process's CPU time needs cgo
// or a command per look (macOS, the BSDs); the stall watch then takes an
// answered probe as the sign of work, within the load timeout (stall.go).
func (t *procTree) cpuTicks() (uint64, bool) { return 0, false }
