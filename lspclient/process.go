package lspclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Waits between the steps of stopping gopls. Their sum keeps a shutdown
// well inside two seconds.
const (
	shutdownWait = 400 * time.Millisecond
	exitWait     = 400 * time.Millisecond
	termWait     = 400 * time.Millisecond
	killWait     = 500 * time.Millisecond
)

// A process is one running gopls and the JSON-RPC connection to it.
type process struct {
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	// ctx is cancelled when the process has exited or is being stopped.
	ctx    context.Context
	cancel context.CancelFunc
	exited chan struct{} // closed once the process is reaped
	// stdin is our end of gopls's standard input; closing it asks gopls to
	// exit.
	stdin io.Closer
	bg    sync.WaitGroup // goroutines that must end before stop returns
	// waitErr is the result of cmd.Wait, set before exited is closed.
	waitErr error
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

// spawn starts gopls with pipes for its standard streams and connects to
// it. Its stderr is logged line by line.
func spawn(opts Options, log *slog.Logger, handler jsonrpc2.Handler) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting gopls: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("starting gopls: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("starting gopls: %w", err)
	}

	cmd := exec.Command(opts.Gopls, append(append([]string{}, opts.Args...), "serve")...)
	cmd.Dir = opts.Root
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr()
	err = cmd.Start()
	// The child has its own copies now.
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("starting gopls: %w", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	p := &process{cmd: cmd, ctx: ctx, cancel: cancel, exited: make(chan struct{}), stdin: inW}
	p.bg.Go(func() {
		p.waitErr = cmd.Wait()
		cancel()
		close(p.exited)
	})
	p.bg.Go(func() {
		defer errR.Close()
		sc := bufio.NewScanner(errR)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			log.Debug("gopls stderr", "line", sc.Text())
		}
	})

	rwc := &pipeRWC{Reader: outR, Writer: inW, closers: []io.Closer{inW, outR}}
	p.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	p.conn.Go(ctx, handler)
	p.bg.Go(func() {
		<-p.conn.Done()
		// A broken connection is as good as a dead process.
		cancel()
	})
	log.Info("started gopls", "pid", cmd.Process.Pid, "path", opts.Gopls)
	return p, nil
}

// stop ends the process politely, then less so, and waits for every
// goroutine of the process to end.
func (p *process) stop(log *slog.Logger) error {
	if !p.isExited() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		stopCall := context.AfterFunc(p.ctx, cancel)
		_, err := p.conn.Call(ctx, "shutdown", nil, nil)
		stopCall()
		cancel()
		if err == nil {
			_ = p.conn.Notify(context.Background(), "exit", nil)
		}
	}
	_ = p.stdin.Close()
	if !p.waitExit(exitWait) {
		log.Debug("gopls still running after exit; sending SIGTERM", "pid", p.cmd.Process.Pid)
		p.signal(syscall.SIGTERM)
		if !p.waitExit(termWait) {
			log.Warn("gopls ignored SIGTERM; killing it", "pid", p.cmd.Process.Pid)
			p.signal(syscall.SIGKILL)
			p.waitExit(killWait)
		}
	}
	p.cancel()
	_ = p.conn.Close()
	<-p.conn.Done()
	p.bg.Wait()
	return nil
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
