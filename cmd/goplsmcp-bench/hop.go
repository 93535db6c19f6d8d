package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// hopEnv, set in the environment of the harness's own binary, makes it a
// process that only copies bytes between its stdio and a child's: the
// program named by the variable, run with the harness's arguments. In
// front of a plain gopls it is the least any process between an editor
// and gopls can cost (no parsing, no framing, no routing), the floor of
// a relay or a daemon that shares gopls (table 13).
const hopEnv = "GOPLSMCP_BENCH_HOP"

// hopMain is the whole program of a hop: it runs prog with args, copies
// its stdin to the child's and the child's stdout to its own, and ends
// when the child does (its stdin closing closes the child's).
func hopMain(prog string, args []string) int {
	cmd := exec.Command(prog, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp-bench hop:", err)
		return 2
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp-bench hop:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp-bench hop:", err)
		return 2
	}
	go func() {
		_, _ = io.Copy(in, os.Stdin)
		in.Close()
	}()
	// Both ways are copied, each read written at once: the answers pass
	// through this process as the requests do.
	_, _ = io.Copy(os.Stdout, out)
	if err := cmd.Wait(); err != nil {
		return 1
	}
	return 0
}

// hopFloor measures, beside table 13, what one process between an editor
// and gopls costs at the least, and what goplsmcp's path costs beside it:
// two plain goplses (with the settings goplsmcp gives its own) on ws, one
// started directly and one behind a hop, goplsmcp lsp on a daemon of its
// own, and an editor on that daemon's socket (the daemon reached as the
// relay reaches it when it cannot hand the editor's stdio over), all loaded and quiet, asked the editor's requests in turn, one
// to each, so that all see the same moment of the machine. No agent
// runs: this is the path alone.
func (b *bench) hopFloor(ctx context.Context, ws *workspace) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("the hop: %w", err)
	}
	env := b.envFor("goplsmcp")
	loadStart := orUnknown(readTrim("/proc/loadavg"))
	path := ws.refs.abs(ws)
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	uri := lspclient.FileURI(path)
	at := position(uri, ws.refs.at)
	var eds []*lspProc
	defer func() {
		for _, ed := range eds {
			ed.close()
		}
	}()
	// goplsmcp lsp's daemon is its own, in a runtime directory of its own.
	rt, err := b.runtimeDir()
	if err != nil {
		return err
	}
	lspEnv := append(slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GOPLSMCP_") }), "GOPLSMCP_RUNTIME_DIR="+rt)
	defer func() {
		stop := exec.Command(b.cfg.goplsmcp, "daemon", "stop")
		stop.Env = lspEnv
		stop.Run()
		os.RemoveAll(rt)
	}()
	for _, s := range []struct {
		argv     []string
		env      []string
		settings map[string]any
	}{
		{[]string{b.cfg.gopls}, env, lspclient.EditorSettings()},
		{[]string{self}, append(slices.Clone(env), hopEnv+"="+b.cfg.gopls), lspclient.EditorSettings()},
		// The daemon has the settings of its own gopls.
		{[]string{b.cfg.goplsmcp, "lsp", "-mode=stdio", "--gopls", b.cfg.gopls, "--log-level", "warn"}, lspEnv, nil},
		{nil, nil, nil}, // the daemon alone: its socket, below
	} {
		var ed *lspProc
		if s.argv == nil {
			ed, err = dialDaemonEditor(ctx, rt, ws.root)
		} else {
			ed, err = startLSP(ctx, s.argv, ws.root, s.env, s.settings)
		}
		if err != nil {
			return err
		}
		eds = append(eds, ed)
		if err := ed.openAndHover(ctx, uri, text, at); err != nil {
			return err
		}
	}
	pids := []int{eds[0].cmd.Process.Pid, eds[1].cmd.Process.Pid, eds[2].cmd.Process.Pid}
	if d := b.daemonPID(rt); d != 0 {
		pids = append(pids, d)
	}
	settle(ctx, pids, b.settleMax(ws))
	queries := editorQueries(ws, uri)
	lat := make([]map[string]samples, len(eds))
	for j := range lat {
		lat[j] = map[string]samples{}
	}
	n := 2 * b.editorSamples()
	for i := range b.plan.warmN/2 + n {
		for _, q := range queries {
			// Which goes first turns, so none always finds another's
			// answer just sent.
			for k := range eds {
				j := (i + k) % len(eds)
				d, err := eds[j].sample(ctx, q)
				if err != nil {
					return fmt.Errorf("%s: %w", q.name, err)
				}
				if i >= b.plan.warmN/2 {
					lat[j][q.name] = append(lat[j][q.name], d)
				}
			}
		}
	}
	t := b.table(13, "One gopls for the editor and the agents: the least one more process costs",
		fmt.Sprintf("Two plain goplses on %s with the settings of table 13, one the editor starts itself and one behind a process that only copies bytes both ways (goplsmcp-bench's hop: no parsing, no framing, no routing), and beside them `goplsmcp lsp` with a daemon of its own, and a second editor connected to that daemon's socket directly (the daemon reached as goplsmcp lsp reaches it when it relays): all loaded and quiet, asked each request in turn, %d samples each, no agents. Sharing one gopls between an editor and agents needs at least one such process, whatever it does (gopls serves one LSP stream per session: something must merge the editor's stream with the agents'); `goplsmcp lsp` hands the editor's stdio (its pipes) to the daemon, which is then the one such process on the path, goplsmcp lsp standing by. Load average at the start: %s.", ws.name, n, loadStart),
		"request", "gopls p50", "gopls behind a hop p50", "hop's cost", "the daemon alone p50", "its cost", "goplsmcp lsp p50", "its cost", "goplsmcp lsp / gopls")
	for _, q := range queries {
		d, h, dm, l := lat[0][q.name].p50(), lat[1][q.name].p50(), lat[3][q.name].p50(), lat[2][q.name].p50()
		name := q.name
		if name == "rejected" {
			name = "a request gopls rejects at once"
		}
		t.add(name, ms(d), ms(h), ms(h-d), ms(dm), ms(dm-d), ms(l), ms(l-d), ratio(float64(l), float64(d)))
	}
	return nil
}

// dialDaemonEditor connects an editor to the daemon in the runtime
// directory rt as goplsmcp lsp does when it relays (its socket, then the
// greeting of the daemon's editor handler), and initializes it on root.
func dialDaemonEditor(ctx context.Context, rt, root string) (*lspProc, error) {
	socks, _ := filepath.Glob(filepath.Join(rt, "*.sock"))
	if len(socks) != 1 {
		return nil, fmt.Errorf("the daemon's socket: %d in %s, want 1", len(socks), rt)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socks[0])
	if err != nil {
		return nil, fmt.Errorf("the daemon's socket: %w", err)
	}
	// cmd/goplsmcp's greeting of its "lsp" handler (lsp.go), without the
	// consent argument.
	if _, err := io.WriteString(conn, mcp.RawHello("lsp", "")); err != nil {
		conn.Close()
		return nil, err
	}
	p, err := initLSP(ctx, nil, conn, root, nil)
	if err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}
