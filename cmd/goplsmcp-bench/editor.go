package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/jsonrpc2"
)

// editorAgents is how many agent sessions share the editor's gopls.
const editorAgents = 4

// editorSamples is how many times each editor request is timed (in
// smoke mode, the plan's few).
const editorSamples = 60

func (b *bench) editorSamples() int {
	if b.plan.overheadN < 40 {
		return b.plan.overheadN
	}
	return editorSamples
}

// lspProc is a language server run as an editor runs it, spoken to over
// LSP on its stdio.
type lspProc struct {
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
}

func startLSP(ctx context.Context, argv []string, root string, env []string) (*lspProc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = root, env
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	p := &lspProc{cmd: cmd, conn: jsonrpc2.NewConn(jsonrpc2.NewStream(struct {
		io.Reader
		io.WriteCloser
	}{out, in}))}
	// As a plain editor: every setting its default, every request of the
	// server's answered with nothing.
	p.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "workspace/configuration" {
			var q struct {
				Items []any `json:"items"`
			}
			json.Unmarshal(req.Params(), &q)
			return reply(ctx, make([]map[string]any, len(q.Items)), nil)
		}
		return reply(ctx, nil, nil)
	})
	uri := lspclient.FileURI(root)
	var res json.RawMessage
	if _, err := p.conn.Call(ctx, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": uri,
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": "ws"}},
		"capabilities":     map[string]any{"textDocument": map[string]any{"hover": map[string]any{"contentFormat": []string{"markdown"}}}}}, &res); err != nil {
		p.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := p.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// request times one request.
func (p *lspProc) request(ctx context.Context, method string, params any) (json.RawMessage, time.Duration, error) {
	var res json.RawMessage
	start := time.Now()
	_, err := p.conn.Call(ctx, method, params, &res)
	return res, time.Since(start), err
}

func (p *lspProc) close() {
	p.conn.Notify(context.Background(), "exit", nil)
	p.conn.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// editorRun is what one side of the editor measurement found.
type editorRun struct {
	mem, rss int64              // KiB, every process
	lat      map[string]samples // by request
	firsts   []time.Duration    // agents' first answers
	loaded   time.Duration      // the editor's first hover
}

// editor measures an editor on goplsmcp lsp with agents on the same
// daemon against the editor on a plain gopls of its own: memory, the
// agents' first answers, and the editor's latency while they call.
func (b *bench) editor(ctx context.Context, ws *workspace) error {
	plain, err := b.editorSide(ctx, ws, false)
	if err != nil {
		return fmt.Errorf("plain gopls: %w", err)
	}
	shared, err := b.editorSide(ctx, ws, true)
	if err != nil {
		return fmt.Errorf("goplsmcp lsp: %w", err)
	}
	t := b.table(13, "One gopls for the editor and the agents (issue 31)",
		fmt.Sprintf("An editor (a plain LSP client) on %s: on a gopls of its own (`gopls`), and on `goplsmcp lsp` with %d agent stdio sessions (`--share auto`) on the same daemon, started after the editor's first answer. Memory: every process, PSS (and the RSS sum), after they settle. Agents' first answer: from starting the session's process to the first correct references answer. Editor latency: %d samples of each request, p50, the plain gopls alone against `goplsmcp lsp` while the %d agents call go_symbol_references in a loop (and, last column, with the agents connected and idle: what the relay and the daemon add). Targets: memory ≤ 1.15× the editor's gopls alone; agents' first answer ≤ 0.1 s; editor latency ≤ 1.1× plain gopls.", ws.name, editorAgents, b.editorSamples(), editorAgents),
		"measure", "editor on plain gopls", fmt.Sprintf("goplsmcp lsp + %d agents", editorAgents), "ratio", "met", "goplsmcp lsp, agents idle")
	r := float64(shared.mem) / float64(plain.mem)
	t.add("memory (PSS), all processes", mib(plain.mem)+fmt.Sprintf(" (RSS %s)", mib(plain.rss)), mib(shared.mem)+fmt.Sprintf(" (RSS %s)", mib(shared.rss)), ratio(float64(shared.mem), float64(plain.mem)), check(r <= 1.15), "—")
	b.rep.judge(fmt.Sprintf("13. editor and %d agents: memory ≤ 1.15× the editor's gopls alone", editorAgents), ratio(float64(shared.mem), float64(plain.mem)), r <= 1.15)
	var firsts []string
	for _, d := range shared.firsts {
		firsts = append(firsts, fmt.Sprintf("%.3f", d.Seconds()))
	}
	worst := slices.Max(shared.firsts)
	t.add("agents' first answers", "—", strings.Join(firsts, ", ")+" s", "—", check(worst <= 100*time.Millisecond), "—")
	b.rep.judge("13. an agent started after the editor answers its first question in ≤ 0.1 s", secs(worst), worst <= 100*time.Millisecond)
	t.add("editor's first hover (the load)", secs(plain.loaded), secs(shared.loaded), ratio(float64(shared.loaded), float64(plain.loaded)), "—", "—")
	for _, q := range []string{"hover", "definition", "references", "completion"} {
		a, s := plain.lat[q].p50(), shared.lat[q].p50()
		rq := float64(s) / float64(a)
		t.add("editor "+q+" p50, agents calling", ms(a), ms(s), ratio(float64(s), float64(a)), check(rq <= 1.1),
			fmt.Sprintf("%s (%s)", ms(shared.lat["idle "+q].p50()), ratio(float64(shared.lat["idle "+q].p50()), float64(a))))
		b.rep.judge("13. editor "+q+" latency with agents calling ≤ 1.1× plain gopls", ratio(float64(s), float64(a)), rq <= 1.1)
	}
	return nil
}

// editorSide runs the editor on a plain gopls, or on goplsmcp lsp with
// agents beside it.
func (b *bench) editorSide(ctx context.Context, ws *workspace, shared bool) (*editorRun, error) {
	run := &editorRun{lat: map[string]samples{}}
	env := slices.DeleteFunc(b.envFor("goplsmcp"), func(kv string) bool { return strings.HasPrefix(kv, "GOPLSMCP_") })
	argv := []string{b.cfg.gopls}
	var rt string
	if shared {
		var err error
		if rt, err = b.runtimeDir(); err != nil {
			return nil, err
		}
		env = append(env, "GOPLSMCP_RUNTIME_DIR="+rt)
		argv = []string{b.cfg.goplsmcp, "lsp", "-mode=stdio", "--gopls", b.cfg.gopls, "--log-level", "warn"}
		defer func() {
			stop := exec.Command(b.cfg.goplsmcp, "daemon", "stop")
			stop.Env = env
			stop.Run()
			os.RemoveAll(rt)
		}()
	}
	b.logf("editor on %s: %s", ws.name, argv[0])
	start := time.Now()
	ed, err := startLSP(ctx, argv, ws.root, env)
	if err != nil {
		return nil, err
	}
	defer ed.close()
	path := ws.refs.abs(ws)
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	uri := lspclient.FileURI(path)
	if err := ed.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": string(text)}}); err != nil {
		return nil, err
	}
	at := position(uri, ws.refs.at)
	for tries := 0; ; tries++ {
		res, _, err := ed.request(ctx, "textDocument/hover", at)
		if err == nil && string(res) != "null" && len(res) > 0 {
			break
		}
		if tries == 100 {
			return nil, fmt.Errorf("no hover in 100 tries: %v %s", err, res)
		}
	}
	run.loaded = time.Since(start)

	pids := []int{ed.cmd.Process.Pid}
	var agents []*mcpServer
	defer func() {
		for _, a := range agents {
			a.close()
		}
	}()
	args := map[string]any{"file": path, "symbol": ws.refs.symbol}
	if shared {
		agentArgv := append(slices.Clone(b.oursArgv(ws.root)[:len(b.oursArgv(ws.root))-2]), "--share", "auto")
		for i := range editorAgents {
			start := time.Now()
			s, err := startServer("goplsmcp", agentArgv, ws.root, env)
			if err != nil {
				return nil, err
			}
			s.timeout = b.plan.callTimeout
			agents = append(agents, s)
			if err := s.initialize(ctx); err != nil {
				return nil, err
			}
			if _, err := s.mustCall(ctx, "go_symbol_references", args); err != nil {
				return nil, fmt.Errorf("agent %d: %w", i+1, err)
			}
			run.firsts = append(run.firsts, time.Since(start))
			pids = append(pids, s.pid())
		}
	}
	settle(ctx, pids, b.plan.settleMax)
	seen := map[int]bool{}
	for _, p := range pids {
		for _, q := range tree(p) {
			if !seen[q] {
				seen[q] = true
				if rss, _, err := memory(q); err == nil {
					run.rss += rss
				}
				run.mem += pss(q)
			}
		}
	}

	completion := position(uri, pos{ws.refs.at.line, ws.refs.at.char + 1})
	queries := []struct {
		name, method string
		params       any
	}{
		{"hover", "textDocument/hover", at},
		{"definition", "textDocument/definition", at},
		{"references", "textDocument/references", references(uri, ws.refs.at, true)},
		{"completion", "textDocument/completion", completion},
	}
	measure := func(prefix string) error {
		for i := range b.plan.warmN/2 + b.editorSamples() {
			for _, q := range queries {
				_, d, err := ed.request(ctx, q.method, q.params)
				if err != nil {
					return fmt.Errorf("%s: %w", q.name, err)
				}
				if i >= b.plan.warmN/2 {
					run.lat[prefix+q.name] = append(run.lat[prefix+q.name], d)
				}
			}
		}
		return nil
	}
	if shared {
		// The relay and the daemon alone, with the agents connected
		// and idle.
		if err := measure("idle "); err != nil {
			return nil, err
		}
	}

	// The agents call while the editor asks.
	callCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Go(func() {
			for callCtx.Err() == nil {
				a.call(callCtx, "go_symbol_references", args)
			}
		})
	}
	defer func() { stop(); wg.Wait() }()
	if err := measure(""); err != nil {
		return nil, err
	}
	return run, nil
}
