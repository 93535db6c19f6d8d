package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"

	"github.com/goplsmcp/goplsmcp/lspclient"
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
// and gopls costs at the least: two plain goplses (with the settings
// goplsmcp gives its own) on ws, one started directly and one behind a
// hop, both loaded and quiet, asked the editor's requests in turn, one
// to each, so that both see the same moment of the machine. No agent
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
	for _, s := range []struct {
		argv []string
		env  []string
	}{
		{[]string{b.cfg.gopls}, env},
		{[]string{self}, append(slices.Clone(env), hopEnv+"="+b.cfg.gopls)},
	} {
		ed, err := startLSP(ctx, s.argv, ws.root, s.env, lspclient.EditorSettings())
		if err != nil {
			return err
		}
		eds = append(eds, ed)
		if err := ed.openAndHover(ctx, uri, text, at); err != nil {
			return err
		}
	}
	pids := []int{eds[0].cmd.Process.Pid, eds[1].cmd.Process.Pid}
	settle(ctx, pids, b.settleMax(ws))
	queries := editorQueries(ws, uri)
	lat := [2]map[string]samples{{}, {}}
	n := 2 * b.editorSamples()
	for i := range b.plan.warmN/2 + n {
		for _, q := range queries {
			// Which goes first alternates, so neither always finds the
			// other's answer just sent.
			for k := range 2 {
				j := (i + k) % 2
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
	t := b.table(13, "One gopls for the editor and the agents (issue 31): the least one more process costs",
		fmt.Sprintf("Two plain goplses on %s with the settings of table 13, one the editor starts itself and one behind a process that only copies bytes both ways (goplsmcp-bench's hop: no parsing, no framing, no routing), both loaded and quiet, asked each request in turn, %d samples each, no agents. Sharing one gopls v0.23.0 between an editor and agents needs at least one such process, whatever it does (gopls serves one LSP stream per session: something must merge the editor's stream with the agents'); `goplsmcp lsp` has two, its relay and the daemon. Load average at the start: %s.", ws.name, n, loadStart),
		"request", "gopls p50", "gopls behind a hop p50", "ratio", "hop's cost")
	for _, q := range queries {
		d, h := lat[0][q.name].p50(), lat[1][q.name].p50()
		name := q.name
		if name == "rejected" {
			name = "a request gopls rejects at once"
		}
		t.add(name, ms(d), ms(h), ratio(float64(h), float64(d)), ms(h-d))
	}
	return nil
}
