package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// daemonInfo is what a daemon says about itself in its info file, for
// goplsmcp daemon list and stop.
type daemonInfo struct {
	PID int `json:"pid"`
	// ProcStart is the daemon process's start (see processStart): with
	// PID, what proves that a live process is this daemon, and not
	// another that reused its pid.
	ProcStart string    `json:"procStart"`
	GoplsPID  int       `json:"goplsPid"`
	Root      string    `json:"root"`
	Key       string    `json:"key"`
	Started   time.Time `json:"started"`
	Sessions  int       `json:"sessions"`
	Args      []string  `json:"args"`
	RSS       int64     `json:"rss,omitempty"`       // filled by list: the daemon's and its gopls's
	UptimeSec float64   `json:"uptimeSec,omitempty"` // filled by list
}

const daemonUsage = `usage:
  goplsmcp daemon list [--root DIR] [--json]  the shared daemons of this user (those serving DIR): root, pid, sessions, uptime, memory
  goplsmcp daemon stop [--root DIR]           stop them (those serving DIR), letting calls in flight finish`

// runDaemon runs goplsmcp daemon list|stop|serve; g are the flags given
// before the word daemon.
func runDaemon(ctx context.Context, args []string, g globals, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("%s", daemonUsage)
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "--h" {
		fmt.Fprintln(stdout, daemonUsage)
		return nil
	}
	switch args[0] {
	case "serve":
		if err := g.only("daemon serve"); err != nil {
			return err
		}
		return serveDaemon(ctx, args[1:], stderr)
	case "list":
		if err := g.only("daemon list", "root", "json"); err != nil {
			return err
		}
		fs := flag.NewFlagSet("daemon list", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		asJSON := fs.Bool("json", g.json, "print JSON")
		root := fs.String("root", g.root, "list only the daemons serving this root")
		if wantsHelp(args[1:]) {
			return subcommandHelp(stdout, "usage: goplsmcp daemon list [--root DIR] [--json]\n\nLists this user's shared daemons: pid, sessions, uptime, memory, root and flags.", fs)
		}
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
			return usageError("%s", daemonUsage)
		}
		return listDaemons(stdout, stderr, *asJSON, *root)
	case "stop":
		if err := g.only("daemon stop", "root"); err != nil {
			return err
		}
		fs := flag.NewFlagSet("daemon stop", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		root := fs.String("root", g.root, "stop only the daemons serving this root")
		if wantsHelp(args[1:]) {
			return subcommandHelp(stdout, "usage: goplsmcp daemon stop [--root DIR]\n\nStops this user's shared daemons (those serving DIR), letting the calls in flight finish.", fs)
		}
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
			return usageError("%s", daemonUsage)
		}
		return stopDaemons(stdout, stderr, *root)
	}
	return usageError("%s", daemonUsage)
}

// healthCheckIdle is how long a daemon stays once its last session has
// gone when no session ever called a tool: clients check a server's
// health by starting it, listing its tools and leaving (claude mcp list,
// gemini mcp list), and a warm gopls of a gigabyte or more is not worth
// keeping for that.
const healthCheckIdle = 30 * time.Second

// serveDaemon is goplsmcp daemon serve, started by a stdio session (see
// startDaemon): it serves the workspace's sessions on its socket until
// the last has been gone for --idle, SIGTERM, or a gopls that cannot be
// kept alive.
func serveDaemon(ctx context.Context, args []string, stderr io.Writer) error {
	outliveShell()
	cfg := &config{}
	fs := newFlagSet(cfg)
	var dir, key string
	var readyFD int
	fs.StringVar(&dir, "runtime-dir", "", "")
	fs.StringVar(&key, "key", "", "")
	fs.IntVar(&readyFD, "ready-fd", 0, "")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if dir == "" || key == "" || fs.NArg() > 0 {
		return usageError("goplsmcp daemon serve is started by goplsmcp itself")
	}
	if err := cfg.check(); err != nil {
		return err
	}
	cfg.daemon = true
	ws := &workspace{dir: dir, key: key, root: cfg.root, args: args}
	var ready *os.File
	if readyFD > 0 {
		ready = os.NewFile(uintptr(readyFD), "ready")
		defer ready.Close()
	}

	// Whoever started this daemon holds the lock and found nothing
	// listening: a socket file there is a dead daemon's.
	os.Remove(ws.socket())
	ln, err := net.Listen("unix", ws.socket())
	if err != nil {
		return fmt.Errorf("listening on %s: %w", ws.socket(), err)
	}
	ul := ln.(*net.UnixListener)
	// A daemon that drains while its successor listens must not remove
	// the successor's socket: it removes its own, checked, at the end.
	ul.SetUnlinkOnClose(false)
	os.Chmod(ws.socket(), 0o600)
	sockInfo, _ := os.Stat(ws.socket())
	defer func() {
		if fi, err := os.Stat(ws.socket()); err == nil && sockInfo != nil && os.SameFile(fi, sockInfo) {
			os.Remove(ws.socket())
		}
	}()
	defer ln.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := startStack(ctx, cfg, stderr, false)
	if err != nil {
		return err
	}
	defer st.close()

	info := &daemonInfo{PID: os.Getpid(), GoplsPID: st.client.PID(), Root: st.root, Key: key, Started: time.Now(), Args: cfg.publicArgs(args)}
	if info.ProcStart, _, err = processStart(os.Getpid()); err != nil {
		st.log.Warn("this daemon cannot name its own start, so goplsmcp daemon list and stop will not know it", "error", err)
	}
	var infoMu sync.Mutex
	writeInfo := func(sessions int) {
		infoMu.Lock()
		defer infoMu.Unlock()
		info.Sessions = sessions
		info.GoplsPID = st.client.PID()
		if err := writeFileAtomic(ws.infoFile(), info); err != nil {
			st.log.Warn("writing the daemon's info file", "error", err)
		}
		if sessions == 0 {
			go releaseKept(ctx, st)
		}
	}
	writeInfo(0)
	defer func() {
		var cur daemonInfo
		if data, err := os.ReadFile(ws.infoFile()); err == nil && json.Unmarshal(data, &cur) == nil && cur.PID == os.Getpid() {
			os.Remove(ws.infoFile())
		}
	}()

	// A gopls in a crash loop cannot be kept alive: the daemon goes, and
	// the sessions' next calls start a new one.
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if h := st.client.Health(); h.State == "crash-loop" || h.State == "closed" {
					st.log.Error("gopls cannot be kept alive; the daemon stops", "state", h.State, "last_exit", h.LastExit)
					cancel()
					return
				}
			}
		}
	}()

	st.log.Info("serving shared stdio sessions", "socket", ws.socket(), "root", st.root, "gopls", st.client.Version(),
		"pid", st.client.PID(), "goplsmcp_pid", os.Getpid(), "idle", cfg.idle)
	if ready != nil {
		fmt.Fprintln(ready, "ready")
		ready.Close()
	}
	err = st.srv.ServeLocal(ctx, ln, &mcp.LocalOptions{Idle: cfg.idle, IdleUnused: healthCheckIdle, OnSessions: writeInfo,
		Raw: st.rawHandlers(), Configure: st.configureSession})
	st.log.Info("the shared daemon stops", "error", err)
	if cerr := st.close(); err == nil {
		err = cerr
	}
	return err
}

// configureSession is what a session of the daemon is served with, as
// its first line says (see sessionHello); a session that says nothing
// may not write and has the default tools.
func (st *stack) configureSession(arg string) (*mcp.SessionConfig, error) {
	var set sessionSettings
	if arg != "" {
		if err := json.Unmarshal([]byte(arg), &set); err != nil {
			return nil, fmt.Errorf("a session's first line: %w", err)
		}
		if err := checkTools(set.Tools); err != nil {
			return nil, err
		}
	}
	return st.br.SessionConfig(set.AllowWrite, set.Tools, instructions(set.Tools)), nil
}

// releaseKept returns what gopls can spare once the daemon's last session
// has gone and it waits out its --idle: the files kept open in gopls for
// the next question about them are closed, gopls's view is renewed so
// that it drops the packages of every file closed in it (it keeps them
// otherwise; see lspclient/renew.go), then gopls.mem_stats makes gopls
// collect its garbage, so that the Go runtime can give the freed pages
// back to the system.
func releaseKept(ctx context.Context, st *stack) {
	n := st.client.CloseKept()
	renewed := st.client.RenewWhenQuiet()
	if n == 0 && !renewed {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var mem struct {
		HeapAlloc uint64 `json:"HeapAlloc"`
		HeapInUse uint64 `json:"HeapInUse"`
	}
	err := st.client.ExecuteCommand(ctx, "gopls.mem_stats", nil, &mem)
	st.log.Info("no session left: closed the files kept open in gopls", "closed", n, "renewed", renewed, "gopls_heap_bytes", mem.HeapInUse, "mem_stats_error", err)
}

// publicArgs are a daemon's flags without its own plumbing.
func (cfg *config) publicArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--runtime-dir", "--key", "--ready-fd":
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// writeFileAtomic writes v as JSON to path through a rename, so that a
// reader sees the old file or the new one, whole.
func writeFileAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	// Made afresh (O_EXCL follows no link), so that whatever was at tmp
	// is replaced, never written through.
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// errNoProcess: the pid names no live process.
var errNoProcess = errors.New("no such process")

// running reports whether d's process is, provably, the daemon that wrote
// d: a live process of this user's whose start is the one d records (a
// pid alone may have been reused by any process since). gone says it is
// provably not: the pid names no process, or another one, so d is stale.
// Neither: it cannot be told (no start recorded, or the system does not
// say), and nothing is done to it.
func (d *daemonInfo) running() (running, gone bool) {
	start, uid, err := processStart(d.PID)
	switch {
	case errors.Is(err, errNoProcess):
		return false, true
	case err != nil || d.ProcStart == "":
		return false, false
	case start != d.ProcStart || uid != os.Getuid():
		return false, true
	}
	return true, false
}

// daemons reads the info files of the runtime directory, dropping those
// of daemons that are gone, and returns the daemons proven to run (see
// daemonInfo.running). An info file that is not this user's own is left
// alone and said so on warn.
func daemons(warn io.Writer) ([]*daemonInfo, error) {
	dir, err := runtimeDir()
	if err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []*daemonInfo
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil {
			continue
		}
		if err := privateFile(fi, 0); err != nil {
			fmt.Fprintf(warn, "goplsmcp: ignoring %s, which %v: not a daemon's\n", f, err)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var d daemonInfo
		if json.Unmarshal(data, &d) != nil || d.PID <= 0 {
			continue
		}
		running, gone := d.running()
		if gone {
			// Killed without a chance to clean up.
			os.Remove(f)
		}
		if !running {
			continue
		}
		d.UptimeSec = time.Since(d.Started).Seconds()
		d.RSS = processRSS(d.PID)
		if d.GoplsPID > 0 {
			d.RSS += processRSS(d.GoplsPID)
		}
		out = append(out, &d)
	}
	slices.SortFunc(out, func(a, b *daemonInfo) int { return strings.Compare(a.Root, b.Root) })
	return out, nil
}

// listDaemons prints the user's daemons, or those serving root.
func listDaemons(stdout, stderr io.Writer, asJSON bool, root string) error {
	list, err := daemons(stderr)
	if err != nil {
		return err
	}
	if root != "" {
		if root, err = resolveRoot(root); err != nil {
			return usageError("%v", err)
		}
		list = slices.DeleteFunc(list, func(d *daemonInfo) bool { return d.Root != root })
	}
	if asJSON {
		if list == nil {
			list = []*daemonInfo{}
		}
		data, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, string(data))
		return err
	}
	if len(list) == 0 && root != "" {
		_, err := fmt.Fprintf(stdout, "no shared goplsmcp daemon serves %s\n", root)
		return err
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(stdout, "no shared goplsmcp daemon runs")
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tSESSIONS\tUPTIME\tRSS\tROOT\tFLAGS")
	for _, d := range list {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.0f MiB\t%s\t%s\n", d.PID, d.Sessions, time.Duration(d.UptimeSec*float64(time.Second)).Round(time.Second),
			float64(d.RSS)/(1<<20), d.Root, strings.Join(shortFlags(d.Args), " "))
	}
	return tw.Flush()
}

// shortFlags are a daemon's flags without those every daemon has.
func shortFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--root", "--gopls", "--timeout", "--max-message-bytes", "--max-result-bytes", "--max-text-chars", "--idle":
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// stopTimeout bounds the wait for a stopped daemon: its drain and the
// stop of its gopls.
const stopTimeout = 10 * time.Second

// stopDaemons sends SIGTERM to the user's daemons (those serving root, if
// given) and waits for them to end.
func stopDaemons(stdout, stderr io.Writer, root string) error {
	list, err := daemons(stderr)
	if err != nil {
		return err
	}
	if root != "" {
		if root, err = resolveRoot(root); err != nil {
			return usageError("%v", err)
		}
	}
	var stopped []*daemonInfo
	for _, d := range list {
		if root != "" && d.Root != root {
			continue
		}
		// Proven again just before the signal: the list is a moment old.
		if running, _ := d.running(); !running {
			continue
		}
		if err := signalProcess(d.PID, syscall.SIGTERM); err != nil {
			continue
		}
		stopped = append(stopped, d)
	}
	deadline := time.Now().Add(stopTimeout)
	var errs []error
	alive := func(d *daemonInfo) bool { running, _ := d.running(); return running }
	for _, d := range stopped {
		for alive(d) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond) // no handle on a process that is not our child
		}
		if alive(d) {
			errs = append(errs, fmt.Errorf("daemon %d (%s) did not stop within %v", d.PID, d.Root, stopTimeout))
			continue
		}
		fmt.Fprintf(stdout, "stopped the daemon %d serving %s\n", d.PID, d.Root)
	}
	if len(stopped) == 0 {
		fmt.Fprintln(stdout, "no shared goplsmcp daemon to stop")
	}
	return errors.Join(errs...)
}
