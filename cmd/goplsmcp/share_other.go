//go:build !unix

package main

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// shareSupported: no unix sockets with a checked peer here, so --share
// auto serves as --share off does.
const shareSupported = false

func lockFile(path string) (func(), error) { return nil, errors.ErrUnsupported }

func detached() *syscall.SysProcAttr { return nil }

func privateDir(dir string) error { return errors.ErrUnsupported }

func privateFile(fi fs.FileInfo, typ fs.FileMode) error { return errors.ErrUnsupported }

func openPrivate(path string, flag int) (*os.File, error) { return nil, errors.ErrUnsupported }

func signalProcess(pid int, sig syscall.Signal) error { return errors.ErrUnsupported }

func processAlive(pid int) bool { return false }

func processRSS(pid int) int64 { return 0 }

func processStart(pid int) (string, int, error) { return "", 0, errors.ErrUnsupported }
