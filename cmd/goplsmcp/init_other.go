//go:build !linux

package main

// asInit does nothing off Linux, where goplsmcp does not run as a
// container's PID 1.
func asInit() bool { return false }
