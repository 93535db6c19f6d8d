package lspclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Waits between the steps of stopping gopls. Their sum, 1.5 s, keeps a
// shutdown inside two seconds even when gopls is too busy to answer
// shutdown (its requests are queued behind the work in progress) and does
// not exit at the end of its input until it gets SIGTERM.
const (
	shutdownWait = 300 * time.Millisecond
	exitWait     = 300 * time.Millisecond
	termWait     = 300 * time.Millisecond
	killWait     = 500 * time.Millisecond
	// stderrWait bounds reading gopls's last words once it is gone.
	stderrWait = 100 * time.Millisecond
)

// stderrTail is how many of gopls's last stderr lines are kept, to explain
// a crash in the log.
const stderrTail = 8

// Causes of a process's end that are not its exit.
var (
	errStopping    = errors.New("stopped by goplsmcp")
	errOutputEnded = errors.New("gopls's output ended")
)

// A process is one incarnation of gopls: the running program and the
// JSON-RPC connection to it. The [Client] outlives its processes; only its
// supervisor starts and stops them.
type process struct {
	cmd *exec.Cmd
	pid int
	// tree holds gopls and what it starts, to end them together.
	tree   *procTree
	conn   jsonrpc2.Conn
	stream *lspStream
	// ctx is cancelled, with the reason as its cause, when the process can
	// no longer be used: it exited, its output ended, writing to it failed,
	// it stopped answering, or it is being stopped.
	ctx     context.Context
	fail    context.CancelCauseFunc
	exited  chan struct{} // closed once the process is reaped
	waitErr error         // the result of cmd.Wait, set before exited is closed
	stdin   io.Closer     // closing it asks gopls to exit
	started time.Time
	// stderrR is our end of gopls's stderr, read until stderrDone.
	stderrR    io.Closer
	stderrDone chan struct{}

	mu       sync.Mutex
	stopping bool           // set by stop; no goroutine may start after it
	bg       sync.WaitGroup // goroutines that must end before stop returns
	tail     []string       // gopls's last stderr lines

	probing atomic.Bool  // a liveness probe is running
	written atomic.Int64 // bytes written to gopls's input
}

// pipeRWC joins gopls's stdout (read) and stdin (write) into one stream.
type pipeRWC struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p *pipeRWC) Close() error {
	var errs []error
	for _, c := range p.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// deadlineWriter bounds every write to gopls's input. gopls reads its
// input on a goroutine that never waits for work, so a write that cannot
// finish in time means gopls no longer runs; and a message cut short leaves
// the stream unusable. Either way the process has failed.
type deadlineWriter struct {
	f       writeDeadliner
	timeout time.Duration
	failed  func(error)
	written *atomic.Int64
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	_ = w.f.SetWriteDeadline(time.Now().Add(w.timeout))
	n, err := w.f.Write(b)
	w.written.Add(int64(n))
	if err != nil {
		w.failed(fmt.Errorf("writing to gopls: %w", err))
	}
	return n, err
}

// A stdio is gopls's standard streams: the child's ends, which it gets at
// its start, and ours (see newStdio).
type stdio struct {
	childIn, childOut, childErr *os.File
	// out reads gopls's stdout; in writes its stdin.
	out io.Reader
	in  writeDeadliner
	// closeIn ends gopls's input, which asks it to exit.
	closeIn func() error
	// closers are our ends of stdin and stdout, closed with the connection.
	closers []io.Closer
	// errR reads gopls's stderr.
	errR io.ReadCloser
}

// writeDeadliner is our end of gopls's input.
type writeDeadliner interface {
	io.Writer
	SetWriteDeadline(time.Time) error
}

// closerFunc is a func as an io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// spawn starts gopls with its standard streams of newStdio and connects
// to it. Its stderr is logged line by line.
func spawn(opts Options, log *slog.Logger, handler jsonrpc2.Handler) (*process, error) {
	sio, err := newStdio()
	if err != nil {
		return nil, fmt.Errorf("starting gopls: %w", err)
	}
	var args []string
	if opts.Remote != "" {
		// A forwarder; the daemon it starts for "auto" runs in a session
		// of its own, out of reach of the signals that stop the forwarder.
		args = append(args, "-remote="+opts.Remote)
	}
	args = append(append(args, opts.Args...), "serve")
	cmd := exec.Command(opts.Gopls, args...)
	cmd.Dir = opts.Root
	cmd.Env = childEnv(os.Environ(), opts.Env, opts.AllowNetwork)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = sio.childIn, sio.childOut, sio.childErr
	cmd.SysProcAttr = sysProcAttr()
	err = cmd.Start()
	// The child has its own copies now.
	closeAll(sio.childIn, sio.childOut, sio.childErr)
	if err != nil {
		closeAll(sio.closers...)
		closeAll(sio.errR)
		return nil, fmt.Errorf("starting gopls: %w", err)
	}

	tree, err := startTree(cmd.Process.Pid)
	if err != nil {
		log.Warn("gopls's children may outlive goplsmcp", "error", err)
	}
	ctx, fail := context.WithCancelCause(context.Background())
	p := &process{tree: tree,
		cmd: cmd, pid: cmd.Process.Pid, ctx: ctx, fail: fail,
		exited: make(chan struct{}), stdin: closerFunc(sio.closeIn), started: time.Now(),
		stderrR: sio.errR, stderrDone: make(chan struct{}),
	}
	p.bg.Go(func() {
		p.waitErr = cmd.Wait()
		fail(fmt.Errorf("gopls exited: %v", p.waitErr))
		close(p.exited)
	})
	p.bg.Go(func() {
		defer close(p.stderrDone)
		sc := bufio.NewScanner(sio.errR)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			log.Debug("gopls stderr", "pid", p.pid, "line", line)
			p.mu.Lock()
			if len(p.tail) == stderrTail {
				p.tail = p.tail[1:]
			}
			p.tail = append(p.tail, line)
			p.mu.Unlock()
		}
	})

	w := &deadlineWriter{f: sio.in, timeout: opts.Timeout, failed: func(err error) { fail(err) }, written: &p.written}
	rwc := &pipeRWC{Reader: sio.out, Writer: w, closers: sio.closers}
	p.stream = newLSPStream(rwc)
	p.conn = jsonrpc2.NewConn(p.stream)
	// The connection reads until its stream is closed, not until ctx ends:
	// the answer to shutdown must still arrive while the process stops.
	p.conn.Go(context.Background(), handler)
	p.bg.Go(func() {
		<-p.conn.Done()
		fail(errOutputEnded)
	})
	log.Info("started gopls", "pid", p.pid, "path", opts.Gopls)
	return p, nil
}

// goBG runs f on a goroutine that stop waits for, unless the process is
// already being stopped.
func (p *process) goBG(f func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopping {
		return false
	}
	p.bg.Go(f)
	return true
}

// stderr returns gopls's last lines of standard error, joined.
func (p *process) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, "\n")
}

// call sends one request and waits for its answer, until ctx ends or the
// process fails. A cancelled request is cancelled in gopls too.
func (p *process) call(ctx context.Context, method string, params, result any) error {
	if ctx.Err() != nil {
		// Cancelled before it was sent: gopls never hears of it.
		return context.Cause(ctx)
	}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()

	id, raw, err := p.rawCall(callCtx, method, params)
	switch {
	case err == nil:
		return decodeResult(raw, result)
	case p.ctx.Err() != nil:
		return fmt.Errorf("%s: %w (%v)", method, ErrExited, context.Cause(p.ctx))
	case ctx.Err() != nil:
		// Tell gopls to stop working on it; a late answer is dropped. The
		// write happens apart so that a slow pipe cannot delay the caller.
		p.goBG(func() {
			_ = p.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id})
		})
		return context.Cause(ctx)
	}
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return &ResponseError{Method: method, Code: int(rpcErr.Code), Message: rpcErr.Message}
	}
	return fmt.Errorf("%s: %w", method, err)
}

// rawCall sends one request and returns its result as gopls sent it.
func (p *process) rawCall(ctx context.Context, method string, params any) (jsonrpc2.ID, json.RawMessage, error) {
	// The result is taken from the stream (see lspStream), not decoded by
	// the connection.
	id, err := p.conn.Call(ctx, method, params, nil)
	raw, _ := p.stream.results.take(id)
	return id, raw, err
}

// notify sends a notification; a failure to write has already failed the
// process.
func (p *process) notify(method string, params any) error {
	if err := p.conn.Notify(context.Background(), method, params); err != nil {
		if p.ctx.Err() != nil {
			return fmt.Errorf("%s: %w (%v)", method, ErrExited, context.Cause(p.ctx))
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// alive asks gopls for an immediate answer. gopls answers $/cancelRequest
// on the goroutine that reads its input, ahead of any queued work, so
// silence within the deadline means the process no longer runs or reads —
// not that it is busy. Any answer, even an error, proves it is alive.
func (p *process) alive(deadline time.Duration) bool {
	ctx, cancel := context.WithTimeout(p.ctx, deadline)
	defer cancel()
	// No request has id 0: the connection numbers them from 1.
	_, _, err := p.rawCall(ctx, "$/cancelRequest", map[string]any{"id": 0})
	if err == nil {
		return true
	}
	var rpcErr *jsonrpc2.Error
	return errors.As(err, &rpcErr)
}

// stop ends the process and waits for every goroutine of it to end. A
// polite stop asks gopls to shut down and exit first; either way it gets
// SIGTERM, then SIGKILL, if it lingers. Whatever gopls started in its
// process group is killed too.
func (p *process) stop(log *slog.Logger, polite bool) {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	if !polite {
		p.fail(errStopping)
		p.signal(syscall.SIGKILL)
	} else if !p.isExited() {
		// Apart, and waited for within the bound: the connection writes
		// one message at a time, and one that gopls stopped reading
		// holds the way until its input is closed below.
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		stopCall := context.AfterFunc(p.ctx, cancel)
		answered := make(chan bool, 1)
		p.bg.Go(func() {
			_, _, err := p.rawCall(ctx, "shutdown", nil)
			answered <- err == nil
		})
		select {
		case ok := <-answered:
			if ok {
				// The way is free: gopls has just answered.
				_ = p.conn.Notify(context.Background(), "exit", nil)
			}
		case <-ctx.Done():
		}
		stopCall()
		cancel()
	}
	_ = p.stdin.Close()
	if !p.waitExit(exitWait) {
		log.Debug("gopls still running after exit; sending SIGTERM", "pid", p.pid)
		p.signal(syscall.SIGTERM)
		if !p.waitExit(termWait) {
			log.Warn("gopls ignored SIGTERM; killing it", "pid", p.pid)
			p.signal(syscall.SIGKILL)
			p.waitExit(killWait)
		}
	}
	// gopls is gone; the go commands it ran may not be.
	p.signal(syscall.SIGKILL)
	p.tree.release()
	p.fail(errStopping)
	_ = p.conn.Close()
	<-p.conn.Done()
	// The last lines gopls wrote (a panic, say) are still to be read, unless
	// something that escaped its process group holds the pipe open.
	t := time.NewTimer(stderrWait)
	select {
	case <-p.stderrDone:
	case <-t.C:
	}
	t.Stop()
	_ = p.stderrR.Close()
	p.bg.Wait()
}

func (p *process) isExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

func closeAll(cs ...io.Closer) {
	for _, c := range cs {
		_ = c.Close()
	}
}
