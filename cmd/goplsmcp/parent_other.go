//go:build !linux && !windows

package main

// dieWithParent does nothing where the kernel offers no parent-death signal
// (macOS, the BSDs); the end of stdin still ends the server, and the guard
// ends gopls's process group when goplsmcp ends (see lspclient).
func dieWithParent() {}
