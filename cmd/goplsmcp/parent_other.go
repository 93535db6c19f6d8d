//go:build !linux

package main

// dieWithParent does nothing where the kernel offers no parent-death signal;
// the end of stdin still ends the server.
func dieWithParent() {}
