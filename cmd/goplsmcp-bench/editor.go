package main

import (
	"context"
	"encoding/json"
	"errors"
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

// startLSP starts argv as an editor would, with settings as its
// initializationOptions and its answer to workspace/configuration (nil:
// gopls's defaults).
func startLSP(ctx context.Context, argv []string, root string, env []string, settings map[string]any) (*lspProc, error) {
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
	p, err := initLSP(ctx, cmd, struct {
		io.Reader
		io.WriteCloser
	}{out, in}, root, settings)
	if err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// initLSP speaks LSP on rwc as an editor does, the server being cmd (nil:
// one reached otherwise), and initializes it on root (see startLSP). On
// an error the returned lspProc is still to be closed.
func initLSP(ctx context.Context, cmd *exec.Cmd, rwc io.ReadWriteCloser, root string, settings map[string]any) (*lspProc, error) {
	p := &lspProc{cmd: cmd, conn: jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))}
	// As a plain editor: every setting as given, every other request of
	// the server's answered with nothing.
	p.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "workspace/configuration" {
			var q struct {
				Items []any `json:"items"`
			}
			json.Unmarshal(req.Params(), &q)
			items := make([]map[string]any, len(q.Items))
			for i := range items {
				items[i] = map[string]any{}
				if settings != nil {
					items[i] = settings
				}
			}
			return reply(ctx, items, nil)
		}
		return reply(ctx, nil, nil)
	})
	uri := lspclient.FileURI(root)
	var res json.RawMessage
	init := map[string]any{"processId": os.Getpid(), "rootUri": uri,
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": "ws"}},
		"capabilities":     map[string]any{"textDocument": map[string]any{"hover": map[string]any{"contentFormat": []string{"markdown"}}}}}
	if settings != nil {
		init["initializationOptions"] = settings
	}
	if _, err := p.conn.Call(ctx, "initialize", init, &res); err != nil {
		return p, fmt.Errorf("initialize: %w", err)
	}
	if err := p.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return p, err
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
	if p.cmd == nil {
		return
	}
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
	edMem, edRSS int64              // KiB, the editor's server alone, after the agents' question
	edHeap, heap int64              // KiB, the editor's gopls's heap in use after a GC, then and with the agents
	mem, rss     int64              // KiB, every process, the agents connected
	lat          map[string]samples // by request
	firsts       []time.Duration    // agents' first answers
	loaded       time.Duration      // the editor's first hover
	quiet        time.Duration      // from the first hover until the editor's server was quiet
	gopls        int                // gopls processes
	loadStart    string             // /proc/loadavg when the side began
}

// The sides of the editor measurement.
const (
	// editorPlain: the editor on a gopls of its own with the settings
	// goplsmcp's gopls has (lspclient.EditorSettings), the agents on a
	// daemon of their own: like for like with editorShared.
	editorPlain = iota
	// editorDefaults: the same with gopls's default settings, as an
	// editor runs gopls today.
	editorDefaults
	// editorShared: the editor on goplsmcp lsp, the agents on its daemon.
	editorShared
)

// editor measures an editor on goplsmcp lsp with agents on the same
// daemon against today's world: the editor on a plain gopls of its own,
// and the same agents on a shared daemon (and its gopls) of their own.
// Every side does the same work in the same order, each after a first
// run has filled gopls's file cache: the editor loads and
// its gopls goes quiet, the editor asks the agents' question (references
// and definition of the same symbol), the agents start and ask it, then
// the editor's requests are timed with the agents idle and calling.
func (b *bench) editor(ctx context.Context, ws *workspace) error {
	// A first run, not measured, fills gopls's file cache: the side run
	// first found it empty (a first hover of 10.8 s on GOROOT/src against
	// 3 s, and 1.9 GB after the references where the others held 0.3 GB).
	b.logf("editor on %s: warming gopls's file cache", ws.name)
	if _, err := b.editorSide(ctx, ws, editorPlain); err != nil {
		return fmt.Errorf("warming up: %w", err)
	}
	runs := map[int]*editorRun{}
	for _, side := range []int{editorPlain, editorShared, editorDefaults} {
		run, err := b.editorSide(ctx, ws, side)
		if err != nil {
			return fmt.Errorf("%s: %w", map[int]string{editorPlain: "plain gopls", editorDefaults: "plain gopls, default settings", editorShared: "goplsmcp lsp"}[side], err)
		}
		runs[side] = run
	}
	plain, shared, defaults := runs[editorPlain], runs[editorShared], runs[editorDefaults]
	t := b.table(13, "One gopls for the editor and the agents",
		fmt.Sprintf("An editor (a plain LSP client) on %s, in today's world — on a gopls of its own, the %d agent stdio sessions (`--share auto`) on a daemon of their own — against the editor on `goplsmcp lsp` with the %d agents on its daemon. The plain gopls runs with the settings goplsmcp gives its gopls (%s: like for like), and, last column, with gopls's defaults, as an editor runs it. Each side alike, after a first run (not measured) has filled gopls's file cache: the editor opens %s and hovers until answered (its first hover); the harness waits until the editor's processes use no CPU (gopls has loaded and diagnosed what its settings make it diagnose); the editor asks what the agents will ask, textDocument/references and textDocument/definition of `%s`, and the processes go quiet again; then the agents start one by one and each asks go_symbol_references of `%s` (first answer: from starting the agent's process, so it includes the process start and the MCP handshake; on the shared side the editor's question made the answer warm). Memory, PSS (and the RSS sum), after the processes go quiet: the editor's gopls alone after the agents' question is the target's reference (it did the agents' work too); the every-process row is today's world, two gopls (each with gopls's telemetry child). Editor latency: %d samples of each request, p50, while the %d agents call go_symbol_references in a loop — on their own daemon's gopls on the plain sides, on the editor's on the shared side, so every side has the same competition for the machine's cores — and with the agents connected and idle; beside them, a request gopls rejects at once (a method it does not have): what the path to gopls costs by itself, one process hop for a plain gopls, the daemon's besides on `goplsmcp lsp` (which hands the daemon the editor's stdio and stands by). Targets: memory ≤ 1.15× the editor's gopls alone; agents' first answer ≤ 0.1 s; editor latency ≤ 1.1× plain gopls. Load average at the start of each side: plain %s; shared %s; defaults %s.",
			ws.name, editorAgents, editorAgents, settingsText(), ws.refs.file, ws.refs.symbol, ws.refs.symbol, b.editorSamples(), editorAgents, plain.loadStart, shared.loadStart, defaults.loadStart),
		"measure", "plain gopls, agents on their own daemon", fmt.Sprintf("goplsmcp lsp + %d agents", editorAgents), "ratio", "met", "plain gopls, default settings")
	memCell := func(m, r int64) string { return mib(m) + fmt.Sprintf(" (RSS %s)", mib(r)) }
	r := float64(shared.mem) / float64(plain.edMem)
	t.add("memory (PSS): the editor's gopls alone, after the agents' question / goplsmcp lsp, the daemon, its gopls and the agents", memCell(plain.edMem, plain.edRSS), memCell(shared.mem, shared.rss), ratio(float64(shared.mem), float64(plain.edMem)), check(r <= 1.15), memCell(defaults.edMem, defaults.edRSS))
	b.rep.judge(fmt.Sprintf("13. editor and %d agents: memory ≤ 1.15× the editor's gopls alone (which did the agents' work too)", editorAgents), ratio(float64(shared.mem), float64(plain.edMem)), r <= 1.15)
	t.add("the editor's gopls's heap in use after a GC (gopls.mem_stats): alone, after the agents' question / with the agents", mib(plain.edHeap), mib(shared.heap), ratio(float64(shared.heap), float64(plain.edHeap)), "—", mib(defaults.edHeap))
	t.add(fmt.Sprintf("memory (PSS), every process: today's world (%d gopls processes) / one gopls (%d)", plain.gopls, shared.gopls), memCell(plain.mem, plain.rss), memCell(shared.mem, shared.rss), ratio(float64(shared.mem), float64(plain.mem)), "—", memCell(defaults.mem, defaults.rss))
	list := func(ds []time.Duration) string {
		var out []string
		for _, d := range ds {
			out = append(out, fmt.Sprintf("%.3f", d.Seconds()))
		}
		return strings.Join(out, ", ") + " s"
	}
	worst := slices.Max(shared.firsts)
	t.add("agents' first answers, from process start", list(plain.firsts), list(shared.firsts), "—", check(worst <= 100*time.Millisecond), list(defaults.firsts))
	b.rep.judge("13. an agent started after the editor has loaded answers its first question in ≤ 0.1 s", secs(worst), worst <= 100*time.Millisecond)
	t.add("editor's first hover (the load)", secs(plain.loaded), secs(shared.loaded), ratio(float64(shared.loaded), float64(plain.loaded)), "—", secs(defaults.loaded))
	t.add("then until the editor's processes were quiet", secs(plain.quiet), secs(shared.quiet), "—", "—", secs(defaults.quiet))
	for _, idle := range []bool{false, true} {
		for _, q := range []string{"hover", "definition", "references", "completion", "rejected"} {
			key, when := q, "agents calling"
			if idle {
				key, when = "idle "+q, "agents idle"
			}
			a, s := plain.lat[key].p50(), shared.lat[key].p50()
			rq := float64(s) / float64(a)
			met := "—"
			if !idle && q != "rejected" {
				met = check(rq <= 1.1)
				b.rep.judge("13. editor "+q+" latency with agents calling ≤ 1.1× plain gopls", ratio(float64(s), float64(a)), rq <= 1.1)
			}
			label := fmt.Sprintf("editor %s p50, %s", q, when)
			if q == "rejected" {
				label = fmt.Sprintf("a request gopls rejects at once (the path's own cost) p50, %s", when)
			}
			t.add(label, ms(a), ms(s), ratio(float64(s), float64(a)), met, ms(defaults.lat[key].p50()))
		}
	}
	return nil
}

// settingsText is lspclient.EditorSettings as the table says it.
func settingsText() string {
	data, _ := json.Marshal(lspclient.EditorSettings())
	return "`" + string(data) + "`"
}

// editorSide runs the editor on a plain gopls with the agents on a
// daemon of their own, or on goplsmcp lsp with the agents on its daemon.
func (b *bench) editorSide(ctx context.Context, ws *workspace, side int) (*editorRun, error) {
	shared := side == editorShared
	run := &editorRun{lat: map[string]samples{}, loadStart: orUnknown(readTrim("/proc/loadavg"))}
	env := slices.DeleteFunc(b.envFor("goplsmcp"), func(kv string) bool { return strings.HasPrefix(kv, "GOPLSMCP_") })
	rt, err := b.runtimeDir()
	if err != nil {
		return nil, err
	}
	// Each side's daemon is its own: the plain side's serves only the
	// agents, the shared side's the editor too.
	env = append(env, "GOPLSMCP_RUNTIME_DIR="+rt)
	defer func() {
		stop := exec.Command(b.cfg.goplsmcp, "daemon", "stop")
		stop.Env = env
		stop.Run()
		os.RemoveAll(rt)
	}()
	argv, settings := []string{b.cfg.gopls}, lspclient.EditorSettings()
	if side == editorDefaults {
		settings = nil
	}
	if shared {
		settings = nil // the daemon's
		argv = []string{b.cfg.goplsmcp, "lsp", "-mode=stdio", "--gopls", b.cfg.gopls, "--log-level", "warn"}
	}
	b.logf("editor on %s: %s", ws.name, argv[0])
	start := time.Now()
	ed, err := startLSP(ctx, argv, ws.root, env, settings)
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
	at := position(uri, ws.refs.at)
	if err := ed.openAndHover(ctx, uri, text, at); err != nil {
		return nil, err
	}
	run.loaded = time.Since(start)

	// The editor's processes: its server, and on the shared side the
	// daemon (its gopls), which goplsmcp lsp started apart from itself.
	edPIDs := func() []int {
		pids := []int{ed.cmd.Process.Pid}
		if d := b.daemonPID(rt); shared && d != 0 {
			pids = append(pids, d)
		}
		return pids
	}
	// The editor's gopls loads and diagnoses the workspace; only then is
	// it "loaded". Its CPU is what the harness sees alike on both sides
	// (the daemon gives the editor no progress of its own).
	quietFrom := time.Now()
	settle(ctx, edPIDs(), b.settleMax(ws))
	run.quiet = time.Since(quietFrom)
	// The agents' question, asked by the editor: the plain gopls does the
	// work the shared one will do for the agents.
	refs := references(uri, ws.refs.at, true)
	for _, q := range []struct {
		method string
		params any
	}{{"textDocument/references", refs}, {"textDocument/definition", at}} {
		if _, _, err := ed.request(ctx, q.method, q.params); err != nil {
			return nil, fmt.Errorf("the editor's %s: %w", q.method, err)
		}
	}
	settle(ctx, edPIDs(), b.settleMax(ws))
	run.edMem, run.edRSS, _, run.edHeap = b.settledMemory(ctx, ed, edPIDs())

	var agents []*mcpServer
	defer func() {
		for _, a := range agents {
			a.close()
		}
	}()
	args := map[string]any{"file": path, "symbol": ws.refs.symbol}
	agentArgv := append(slices.Clone(b.oursArgv(ws.root)[:len(b.oursArgv(ws.root))-2]), "--share", "auto")
	pids := []int{ed.cmd.Process.Pid}
	for i := range editorAgents {
		start := time.Now()
		s, err := startServer("goplsmcp", agentArgv, ws.root, env)
		if err != nil {
			return nil, err
		}
		s.timeout = b.plan.callTimeout
		if !ws.fixture {
			s.timeout = b.plan.gorootCallTimeout
		}
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
	if d := b.daemonPID(rt); d != 0 {
		pids = append(pids, d)
	}
	settle(ctx, pids, b.settleMax(ws))
	run.mem, run.rss, run.gopls, run.heap = b.settledMemory(ctx, ed, pids)

	queries := editorQueries(ws, uri)
	measure := func(prefix string) error {
		for i := range b.plan.warmN/2 + b.editorSamples() {
			for _, q := range queries {
				d, err := ed.sample(ctx, q)
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
	// With the agents connected and idle: on the shared side, what the
	// daemon adds (goplsmcp lsp hands it the editor's stdio).
	if err := measure("idle "); err != nil {
		return nil, err
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

// openAndHover opens uri with text in the editor's server and hovers at
// at until gopls answers with something: the editor's first hover, which
// waits for the load.
func (p *lspProc) openAndHover(ctx context.Context, uri string, text []byte, at any) error {
	if err := p.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": string(text)}}); err != nil {
		return err
	}
	for tries := 0; ; tries++ {
		res, _, err := p.request(ctx, "textDocument/hover", at)
		if err == nil && string(res) != "null" && len(res) > 0 {
			return nil
		}
		if tries == 100 {
			return fmt.Errorf("no hover in 100 tries: %v %s", err, res)
		}
	}
}

// editorQuery is one of the editor's requests the bench times.
type editorQuery struct {
	name, method string
	params       any
}

// rejectedMethod is a method gopls does not have: it answers at once
// with an error, so the request's time is the path's to gopls alone.
const rejectedMethod = "goplsmcp-bench/no-such-method"

// editorQueries are the editor's requests timed on ws's symbol in uri:
// hover, definition, references, completion, and one gopls rejects
// ("rejected").
func editorQueries(ws *workspace, uri string) []editorQuery {
	at := position(uri, ws.refs.at)
	return []editorQuery{
		{"hover", "textDocument/hover", at},
		{"definition", "textDocument/definition", at},
		{"references", "textDocument/references", references(uri, ws.refs.at, true)},
		{"completion", "textDocument/completion", position(uri, pos{ws.refs.at.line, ws.refs.at.char + 1})},
		// What the path to gopls costs by itself.
		{"rejected", rejectedMethod, map[string]any{}},
	}
}

// sample times q once; gopls's error for the rejected method is its
// answer.
func (p *lspProc) sample(ctx context.Context, q editorQuery) (time.Duration, error) {
	_, d, err := p.request(ctx, q.method, q.params)
	var rejected *jsonrpc2.Error
	if q.method == rejectedMethod && errors.As(err, &rejected) {
		err = nil
	}
	return d, err
}

// measureTree sums the PSS and RSS (KiB) of pids and their descendants,
// each process once, and counts the gopls among them.
func measureTree(pids []int) (pssKiB, rssKiB int64, gopls int) {
	seen := map[int]bool{}
	for _, p := range pids {
		for _, q := range tree(p) {
			if seen[q] {
				continue
			}
			seen[q] = true
			if rss, _, err := memory(q); err == nil {
				rssKiB += rss
			}
			pssKiB += pss(q)
			if readTrim(fmt.Sprintf("/proc/%d/comm", q)) == "gopls" {
				gopls++
			}
		}
	}
	return pssKiB, rssKiB, gopls
}

// settledMemory measures pids once their memory is steady: it has the
// editor's gopls collect its garbage (gopls.mem_stats runs the GC and
// says the heap in use), then waits until the processes' PSS stops
// falling (the Go runtime gives freed pages back to the system over a
// few seconds), so that what was measured is what the processes hold,
// not when each last collected. The heap is 0 if gopls did not say.
func (b *bench) settledMemory(ctx context.Context, ed *lspProc, pids []int) (pssKiB, rssKiB int64, gopls int, heapKiB int64) {
	var stats struct {
		HeapInUse int64 `json:"HeapInUse"`
	}
	if _, _, err := ed.request(ctx, "workspace/executeCommand", map[string]any{"command": "gopls.mem_stats", "arguments": []any{}}); err == nil {
		res, _, _ := ed.request(ctx, "workspace/executeCommand", map[string]any{"command": "gopls.mem_stats", "arguments": []any{}})
		json.Unmarshal(res, &stats)
	}
	last, _, _ := measureTree(pids)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for steady, deadline := 0, time.Now().Add(20*time.Second); steady < 2 && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now, _, _ := measureTree(pids)
		if now >= last-last/100 {
			steady++
		} else {
			steady = 0
		}
		last = now
	}
	pssKiB, rssKiB, gopls = measureTree(pids)
	return pssKiB, rssKiB, gopls, stats.HeapInUse / 1024
}
