package lspclient

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// OpenRegular opens the file at path (through links) for reading if it is
// a regular file, and returns it with its information. Anything else — a
// FIFO, a device, a socket, a directory — is refused: reading it could
// block forever (a FIFO no one writes, a terminal), never end (/dev/zero)
// or read another program's input. The file is opened without blocking,
// so that a FIFO swapped in after a caller's stat cannot block the open,
// and the decision is made on what was opened, not on a stat before it.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file (%s)", path, fileKind(fi.Mode()))
	}
	return f, fi, nil
}

// ReadRegular reads the file at path if it is a regular file (see
// [OpenRegular]) of at most max bytes; a larger one is refused without
// being read past max.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, larger than the %d bytes goplsmcp reads", path, fi.Size(), max)
	}
	// The file may have grown since it was measured.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than the %d bytes goplsmcp reads", path, max)
	}
	return data, nil
}

// fileKind names the type of a file that is not regular.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
