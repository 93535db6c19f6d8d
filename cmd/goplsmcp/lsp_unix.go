//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"golang.org/x/sys/unix"
)

// The editor's stdio handed to the daemon (docs/editors.md). A relay in
// goplsmcp lsp costs every request of the editor a wake-up of one more
// process each way; instead goplsmcp lsp gives the daemon the editor's
// pipes themselves (SCM_RIGHTS on the daemon's socket), and the daemon
// reads and writes them. goplsmcp lsp stands by, keeping from the
// daemon's reports what a new daemon needs should this one die.
//
// The exchange on a connection greeted with lspHandedHandler:
//
//	daemon → lsp   "+"              ready: the socket holds nothing else
//	lsp → daemon   "F" + the two descriptors (stdin, stdout)
//	lsp → daemon   LENGTH "\n" BYTES  what lsp read of the editor so far
//	daemon → lsp   what an lspclient.Reporter writes
//
// The "+" matters: what the daemon reads with a plain read of its
// buffered reader would drop a message's descriptors, so lsp sends them
// only once the daemon waits for them alone.

// handOffSupported: descriptors pass over unix sockets here.
const handOffSupported = true

// lspHandedHandler is the daemon's raw handler for an editor whose stdio
// goplsmcp lsp hands over.
const lspHandedHandler = "lsp-handed"

// handTimeout bounds the exchange that hands the editor over.
const handTimeout = 30 * time.Second

// maxHandedPrefix bounds what goplsmcp lsp may give the daemon as read
// already: an initialize and what followed it in the same read.
const maxHandedPrefix = 64 << 20

// handStdio returns how goplsmcp lsp hands its stdin and stdout to the
// daemon that daemon connects to, or nil if they cannot be handed: not
// files, or not pipes or sockets (a terminal shared with a shell must
// not be made non-blocking under it).
func handStdio(stdin io.Reader, stdout io.Writer, daemon func(ctx context.Context, root, handler string) (net.Conn, error)) func(context.Context, string, []byte) (*lspclient.Handed, error) {
	in, ok1 := stdin.(*os.File)
	out, ok2 := stdout.(*os.File)
	if !ok1 || !ok2 {
		return nil
	}
	inFD, ok1 := streamFD(in)
	outFD, ok2 := streamFD(out)
	if !ok1 || !ok2 {
		return nil
	}
	return func(ctx context.Context, root string, first []byte) (*lspclient.Handed, error) {
		conn, err := daemon(ctx, root, lspHandedHandler)
		if err != nil {
			return nil, err
		}
		if err := handOver(conn, inFD, outFD, first); err != nil {
			conn.Close()
			return nil, err
		}
		resume := func() (io.Reader, io.Writer, error) {
			r, err := reopen(inFD, "editor-stdin")
			if err != nil {
				return nil, nil, err
			}
			w, err := reopen(outFD, "editor-stdout")
			if err != nil {
				r.Close()
				return nil, nil, err
			}
			return r, w, nil
		}
		return &lspclient.Handed{Control: conn, Resume: resume}, nil
	}
}

// handOver gives the daemon on conn the descriptors and what was read.
func handOver(conn net.Conn, inFD, outFD int, first []byte) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return errors.New("the daemon's connection is not a unix socket")
	}
	conn.SetDeadline(time.Now().Add(handTimeout))
	defer conn.SetDeadline(time.Time{})
	var ready [1]byte
	if _, err := io.ReadFull(conn, ready[:]); err != nil || ready[0] != '+' {
		return fmt.Errorf("the daemon does not take the editor's stdio: %v", err)
	}
	if _, _, err := uc.WriteMsgUnix([]byte{'F'}, unix.UnixRights(inFD, outFD), nil); err != nil {
		return fmt.Errorf("handing the editor's stdio to the daemon: %w", err)
	}
	msg := append(strconv.AppendInt(nil, int64(len(first)), 10), '\n')
	if _, err := conn.Write(append(msg, first...)); err != nil {
		return fmt.Errorf("handing the editor's stdio to the daemon: %w", err)
	}
	return nil
}

// streamFD is f's descriptor if f is a pipe or a socket.
func streamFD(f *os.File) (int, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, false
	}
	fd := -1
	// The descriptor outlives the call: f is stdin or stdout, open for
	// the process's life.
	if rc.Control(func(u uintptr) { fd = int(u) }) != nil || fd < 0 {
		return -1, false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return -1, false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK:
		return fd, true
	}
	return -1, false
}

// reopen is a new file of fd's open file (a duplicate), read and written
// through the runtime's poller if the daemon made it non-blocking.
func reopen(fd int, name string) (*os.File, error) {
	nfd, err := unix.Dup(fd)
	if err != nil {
		return nil, fmt.Errorf("taking the editor's %s back: %w", name, err)
	}
	unix.CloseOnExec(nfd)
	return os.NewFile(uintptr(nfd), name), nil
}

// serveHandedEditor is the daemon's raw handler for an editor whose stdio
// goplsmcp lsp hands over: it serves the editor on its own pipes and
// reports to goplsmcp lsp, on conn, what it keeps.
func (st *stack) serveHandedEditor(ctx context.Context, conn net.Conn, r io.Reader, arg string) error {
	in, out, prefix, err := takeEditor(conn, r)
	if err != nil {
		return err
	}
	defer in.Close()
	defer out.Close()
	// goplsmcp lsp sends nothing more: the connection's end is its end,
	// and then no one is left to restore the editor, nor should the
	// daemon go on serving pipes whose editor may be gone.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	heard := make(chan struct{})
	go func() {
		defer close(heard)
		io.Copy(io.Discard, r)
		cancel()
	}()
	defer func() {
		conn.(*net.UnixConn).CloseRead()
		<-heard
	}()
	report := lspclient.NewReporter(conn)
	editorIn := &endReader{r: io.MultiReader(bytes.NewReader(prefix), in)}
	rwc := struct {
		io.Reader
		io.Writer
		io.Closer
	}{editorIn, out, closers{in, out}}
	err = st.serveEditorOn(ctx, rwc, arg, report.Observe)
	if rerr := report.End(editorIn.ended()); rerr != nil {
		st.log.Warn("reporting an editor's documents to goplsmcp lsp", "error", rerr)
	}
	return err
}

// takeEditor receives, on a connection greeted with lspHandedHandler,
// the editor's stdin and stdout and what goplsmcp lsp read of it.
func takeEditor(conn net.Conn, r io.Reader) (in, out *os.File, prefix []byte, err error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return nil, nil, nil, errors.New("an editor's stdio offered on a connection that is not a unix socket")
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Buffered() > 0 {
		return nil, nil, nil, errors.New("goplsmcp lsp sent more than its greeting before the daemon was ready")
	}
	conn.SetDeadline(time.Now().Add(handTimeout))
	defer conn.SetDeadline(time.Time{})
	if _, err := conn.Write([]byte{'+'}); err != nil {
		return nil, nil, nil, err
	}
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(2*4))
	_, oobn, _, _, err := uc.ReadMsgUnix(b[:], oob)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("receiving an editor's stdio: %w", err)
	}
	var fds []int
	cmsgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err == nil {
		for i := range cmsgs {
			if got, err := unix.ParseUnixRights(&cmsgs[i]); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
	}
	if len(fds) != 2 || b[0] != 'F' {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, nil, nil, fmt.Errorf("an editor's stdio handed over as %d descriptors, want 2", len(fds))
	}
	line, err := readLengthLine(br)
	n, perr := strconv.Atoi(line)
	if err == nil && perr == nil && (n < 0 || n > maxHandedPrefix) {
		perr = fmt.Errorf("%d bytes", n)
	}
	if err == nil && perr == nil {
		prefix = make([]byte, n)
		_, err = io.ReadFull(br, prefix)
	}
	if err != nil || perr != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, nil, fmt.Errorf("reading what goplsmcp lsp read of the editor: %w", errors.Join(err, perr))
	}
	// Non-blocking, so that the runtime's poller reads and writes them
	// and closing them ends a read in progress. Only now: until the
	// hand-over is complete, goplsmcp lsp may still read them itself.
	for _, fd := range fds {
		unix.SetNonblock(fd, true)
	}
	return os.NewFile(uintptr(fds[0]), "editor-stdin"), os.NewFile(uintptr(fds[1]), "editor-stdout"), prefix, nil
}

// maxLengthLine bounds the length line of the hand-over: the digits of
// maxHandedPrefix, and its newline.
const maxLengthLine = 16

// readLengthLine reads a line of at most maxLengthLine bytes, without its
// newline: a peer that sends no newline is refused there, not read on
// without end.
func readLengthLine(br *bufio.Reader) (string, error) {
	var line []byte
	for len(line) < maxLengthLine {
		b, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		if b == '\n' {
			return string(line), nil
		}
		line = append(line, b)
	}
	return "", fmt.Errorf("a length line longer than %d bytes", maxLengthLine)
}

// endReader notes that its reader ended (the editor closed its end).
type endReader struct {
	r   io.Reader
	mu  sync.Mutex
	eof bool
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.mu.Lock()
		e.eof = true
		e.mu.Unlock()
	}
	return n, err
}

func (e *endReader) ended() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.eof
}

// closers closes each of its files.
type closers []*os.File

func (c closers) Close() error {
	var errs []error
	for _, f := range c {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}
