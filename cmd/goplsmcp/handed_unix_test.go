//go:build unix

package main

import (
	"bufio"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHandedLengthLineBounded: a peer on #lsp-handed that hands two
// descriptors and then sends a length line with no end is refused once
// the line is longer than a length can be, having been read a few
// bytes, not for as long as it sends.
func TestHandedLengthLineBounded(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	conns := make([]*net.UnixConn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c.(*net.UnixConn)
		defer c.Close()
	}
	daemonSide, lspSide := conns[0], conns[1]
	var sent atomic.Int64
	go func() {
		var ready [1]byte
		if _, err := lspSide.Read(ready[:]); err != nil {
			return
		}
		r, w, err := os.Pipe()
		if err != nil {
			return
		}
		defer r.Close()
		defer w.Close()
		if _, _, err := lspSide.WriteMsgUnix([]byte{'F'}, unix.UnixRights(int(r.Fd()), int(w.Fd())), nil); err != nil {
			return
		}
		digits := []byte(strings.Repeat("9", 64<<10))
		for sent.Load() < 256<<20 {
			lspSide.SetWriteDeadline(time.Now().Add(5 * time.Second))
			n, err := lspSide.Write(digits)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	start := time.Now()
	_, _, _, err = takeEditor(daemonSide, bufio.NewReaderSize(daemonSide, 64<<10))
	if err == nil || !strings.Contains(err.Error(), "length line") {
		t.Errorf("takeEditor with an endless length line: %.200v", err)
	}
	if took, n := time.Since(start), sent.Load(); took > 10*time.Second || n > 16<<20 {
		t.Errorf("takeEditor read an endless length line for %v, %d bytes sent", took.Round(time.Millisecond), n)
	}
}
