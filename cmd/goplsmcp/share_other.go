//go:build !unix

package main

import (
	"errors"
	"io/fs"
	"syscall"
)

// shareSupported: no unix sockets with a checked peer here, so --share
// auto serves as --share off does.
const shareSupported = false

func lockFile(path string) (func(), error) { return nil, errors.ErrUnsupported }

func detached() *syscall.SysProcAttr { return nil }

func ownedByMe(fi fs.FileInfo) bool { return false }

func signalProcess(pid int, sig syscall.Signal) error { return errors.ErrUnsupported }

func processAlive(pid int) bool { return false }

func processRSS(pid int) int64 { return 0 }
