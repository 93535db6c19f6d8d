// Command goplsmcp-bench measures goplsmcp side by side with a direct LSP
// client and with gopls's own MCP server (gopls mcp), in one run, on one
// machine, with one gopls binary, and prints the results as markdown
// tables for BENCHMARKS.md.
//
// Usage:
//
//	goplsmcp-bench [-mode full|quick|smoke] [-goplsmcp bin/goplsmcp] [-gopls bin/gopls]
//	               [-fixture testdata/bench] [-goroot auto|off|DIR] [-sections LIST] [-o FILE]
//	               [-busy-repo DIR -busy-refs FILE:SYMBOL ...] [-busy-n 3]
//	               [-soak-duration 1h] [-soak-churn 2m] [-soak-sessions 4]
//	goplsmcp-bench -generate DIR
//
// -generate writes the bench fixture module into DIR (see fixture.go).
// Table 11 (a busy machine, busy.go) is measured only on the repositories
// -busy-repo names, in any mode: the harness has no large real repository
// of its own, and a CPU hog has no place in a default run. Table 12 (the
// soak, soak.go) takes an hour and runs only with -sections soak.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if spec := os.Getenv(hogEnv); spec != "" {
		os.Exit(hogMain(spec, os.Stdin))
	}
	if prog := os.Getenv(hopEnv); prog != "" {
		os.Exit(hopMain(prog, os.Args[1:]))
	}
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp-bench:", err)
		os.Exit(1)
	}
}

// allSections are the measurements, in the order they are reported.
var allSections = []string{"overhead", "peers", "cold", "edit", "memory", "tokens", "concurrency", "source", "firstload", "share", "editor", "busy"}

// extraSections are measured only when -sections names them: the soak
// takes an hour.
var extraSections = []string{"soak"}

type config struct {
	mode     string
	goplsmcp string
	gopls    string
	fixture  string
	goroot   string // "" when GOROOT/src is not measured
	sections map[string]bool
	out      string
	answers  string // directory for the compared answers' texts, or ""
	// govulndb is a vulnerability database in its file layout, for
	// go_vulncheck (offline, it needs one), or "".
	govulndb string
	command  string // the command line, for the report
	// busyRepos are the workspaces of the busy-machine measurement
	// (table 11); busyN its runs of each server on each, busyRunMax the
	// bound of one run, busyHog the CPU hog's threads (0: twice the
	// CPUs).
	busyRepos  []busyRepo
	busyN      int
	busyRunMax time.Duration
	busyHog    int
	// soak is the shape of table 12 (soak.go).
	soak soakConfig
	// questions selects table 2's questions by name; nil: all.
	questions *regexp.Regexp
	// gorootCopy says -goroot names a copy the harness may write.
	gorootCopy bool
}

// plan holds how much of each measurement a mode does.
type plan struct {
	overheadN, warmN   int
	peerN, peerGorootN int
	peerGorootDiagN    int
	coldFixtureN       int
	coldGorootN        int
	// firstLoadN are the starts of each server on a large module with an
	// empty gopls cache (table 9).
	firstLoadN int
	editN      int
	// crossN and crossGorootN are the samples of the cross-package edit
	// loop on the fixture and on GOROOT/src; crossContextN those of its
	// rows shown for context (gopls's default diagnostics delay, the
	// importers open, the long session), on the fixture only.
	crossN, crossGorootN, crossContextN int
	memCalls                            int
	idleWindow                          time.Duration
	concRounds                          int
	// loadRounds are the rounds of new packages loading (table 7), each
	// with restCalls calls at rest.
	loadRounds, restCalls int
	settleMax             time.Duration
	settleGorootMax       time.Duration
	gorootByDefault       bool
	// settleSections waits for gopls to be idle before each section.
	settleSections bool
	// shareSmall sweeps table 10 to two sessions, not eight.
	shareSmall        bool
	callTimeout       time.Duration
	gorootCallTimeout time.Duration
	coldGorootTimeout time.Duration
}

var plans = map[string]plan{
	"full": {
		overheadN: 200, warmN: 10,
		peerN: 30, peerGorootN: 15, peerGorootDiagN: 3,
		coldFixtureN: 5, coldGorootN: 2, firstLoadN: 3,
		editN: 60, crossN: 60, crossGorootN: 20, crossContextN: 10,
		memCalls: 1000, idleWindow: 5 * time.Second,
		concRounds: 15, loadRounds: 15, restCalls: 20,
		settleMax: 2 * time.Minute, settleGorootMax: 10 * time.Minute,
		gorootByDefault: true, settleSections: true,
		callTimeout: 2 * time.Minute, gorootCallTimeout: 5 * time.Minute, coldGorootTimeout: 10 * time.Minute,
	},
	"quick": {
		overheadN: 40, warmN: 5,
		// GOROOT/src only when asked for with -goroot DIR.
		peerN: 10, peerGorootN: 5, peerGorootDiagN: 1,
		coldFixtureN: 2, coldGorootN: 1, firstLoadN: 1,
		editN: 15, crossN: 16, crossGorootN: 4, crossContextN: 4,
		memCalls: 1000, idleWindow: 2 * time.Second,
		concRounds: 5, loadRounds: 5, restCalls: 20, settleSections: true,
		settleMax: time.Minute, settleGorootMax: 5 * time.Minute,
		callTimeout: time.Minute, gorootCallTimeout: 5 * time.Minute, coldGorootTimeout: 10 * time.Minute,
	},
	// smoke proves the harness works, for go test; its figures mean little.
	"smoke": {
		overheadN: 5, warmN: 1,
		peerN: 2, peerGorootN: 2, peerGorootDiagN: 1,
		coldFixtureN: 1, coldGorootN: 1,
		editN: 4, crossN: 4, crossGorootN: 2, crossContextN: 0,
		memCalls: 100, idleWindow: time.Second,
		concRounds: 2, loadRounds: 1, restCalls: 3, shareSmall: true,
		settleMax: 20 * time.Second, settleGorootMax: time.Minute,
		// A bound for a call that hangs, not a timing: at load 45 on two
		// cores, a go_search waiting for 32 new packages and a gopls mcp
		// go_diagnostics took over 30 s.
		callTimeout: 2 * time.Minute, gorootCallTimeout: 5 * time.Minute, coldGorootTimeout: 10 * time.Minute,
	},
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("goplsmcp-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &config{}
	fs.StringVar(&cfg.mode, "mode", "full", "how much to measure: full (a few minutes, with GOROOT/src), quick (under a minute, fixture only) or smoke (seconds, proves the harness works)")
	fs.StringVar(&cfg.goplsmcp, "goplsmcp", "bin/goplsmcp", "the goplsmcp binary to measure")
	fs.StringVar(&cfg.gopls, "gopls", "bin/gopls", "the gopls binary every side uses")
	fs.StringVar(&cfg.fixture, "fixture", "testdata/bench", "the bench fixture module (copied before use)")
	goroot := fs.String("goroot", "auto", `GOROOT/src workspace: "auto" ($(go env GOROOT)/src in full mode, off otherwise), "off", or a directory`)
	sections := fs.String("sections", strings.Join(allSections, ","), "comma-separated measurements to run: "+strings.Join(allSections, ", ")+"; and, only when named, "+strings.Join(extraSections, ", "))
	fs.StringVar(&cfg.out, "o", "", "write the markdown report to this file as well as stdout")
	fs.StringVar(&cfg.answers, "answers", "", "write the text of every answer compared with gopls mcp into this directory, to read them side by side")
	govulndb := fs.String("govulndb", "auto", `vulnerability database directory for go_vulncheck (GOVULNDB), "auto" (testdata/vulncheck/vulndb beside the fixture, if there is one) or "off"`)
	var busyDirs []string
	var busyRefs []symbolAt
	fs.Func("busy-repo", "a repository for table 11, a busy machine (repeatable; each with a -busy-refs, in the same order); the table is measured only when one is given", func(v string) error {
		busyDirs = append(busyDirs, v)
		return nil
	})
	fs.Func("busy-refs", "FILE:SYMBOL, FILE relative to the -busy-repo of the same rank: the symbol whose references are the first question on it", func(v string) error {
		s, err := parseBusyRefs(v)
		busyRefs = append(busyRefs, s)
		return err
	})
	fs.IntVar(&cfg.busyN, "busy-n", 3, "table 11: runs of each server on each -busy-repo")
	fs.DurationVar(&cfg.busyRunMax, "busy-run-max", 15*time.Minute, "table 11: the longest one run (a start, its two questions and their retries) may take before it counts as failed")
	fs.IntVar(&cfg.busyHog, "busy-hog", 0, "table 11: busy threads of the CPU hog (0: twice the CPUs)")
	questions := fs.String("questions", "", "table 2: ask only the questions whose names match this regular expression (e.g. 'file context|new query|change on disk')")
	fs.BoolVar(&cfg.gorootCopy, "goroot-copy", false, "table 2: the -goroot DIR is a copy of GOROOT/src the harness may write: diagnostics after a change on disk of encoding/csv/reader.go (run with GOROOT and PATH set to the copy's toolchain; files are replaced through renames, so a hard-linked copy, cp -al, stays apart from its original)")
	fs.DurationVar(&cfg.soak.duration, "soak-duration", time.Hour, "table 12: how long the soak calls")
	fs.DurationVar(&cfg.soak.churn, "soak-churn", 2*time.Minute, "table 12: one session is replaced by a new one this often")
	fs.IntVar(&cfg.soak.sessions, "soak-sessions", 4, "table 12: sessions calling at once")
	fs.Func("soak-tools", "table 12: ask only these of the workload's kinds of call (comma-separated: "+strings.Join(soakTools, ", ")+"), to tell which grows gopls", func(v string) error {
		cfg.soak.tools = map[string]bool{}
		for _, t := range strings.Split(v, ",") {
			if !slices.Contains(soakTools, t) {
				return fmt.Errorf("unknown kind %q; known: %s", t, strings.Join(soakTools, ", "))
			}
			cfg.soak.tools[t] = true
		}
		return nil
	})
	fs.StringVar(&cfg.soak.pprof, "soak-pprof", "", "table 12: start our gopls with -debug and write its live heap profile and debug pages into this directory at every memory sample (gopls mcp takes no -debug)")
	fs.Func("soak-arg", "table 12: an extra argument for goplsmcp's sessions (repeatable), to try a setting, e.g. -soak-arg=--settings='{...}'", func(v string) error {
		cfg.soak.args = append(cfg.soak.args, v)
		return nil
	})
	generate := fs.String("generate", "", "write the bench fixture module into this directory and exit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *generate != "" {
		cfg.mode = "generate"
		cfg.fixture = *generate
		return cfg, nil
	}
	p, ok := plans[cfg.mode]
	if !ok {
		return nil, fmt.Errorf("-mode %q: want full, quick or smoke", cfg.mode)
	}
	cfg.sections = make(map[string]bool)
	for _, s := range strings.Split(*sections, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(allSections, s) && !slices.Contains(extraSections, s) {
			return nil, fmt.Errorf("-sections: unknown section %q; known: %s", s, strings.Join(append(slices.Clone(allSections), extraSections...), ", "))
		}
		cfg.sections[s] = true
	}
	if len(busyDirs) != len(busyRefs) {
		return nil, fmt.Errorf("%d -busy-repo and %d -busy-refs: give one -busy-refs FILE:SYMBOL for each -busy-repo", len(busyDirs), len(busyRefs))
	}
	if cfg.gorootCopy && (*goroot == "auto" || *goroot == "off") {
		return nil, fmt.Errorf("-goroot-copy needs -goroot DIR, the copy")
	}
	if *questions != "" {
		re, err := regexp.Compile(*questions)
		if err != nil {
			return nil, fmt.Errorf("-questions: %w", err)
		}
		cfg.questions = re
	}
	if cfg.soak.duration <= 0 || cfg.soak.churn <= 0 || cfg.soak.sessions < 1 {
		return nil, fmt.Errorf("-soak-duration, -soak-churn and -soak-sessions must be positive")
	}
	if cfg.busyN < 1 || cfg.busyRunMax <= 0 || cfg.busyHog < 0 {
		return nil, fmt.Errorf("-busy-n, -busy-run-max must be positive, -busy-hog not negative")
	}
	for i, d := range busyDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		cfg.busyRepos = append(cfg.busyRepos, busyRepo{dir: abs, refs: busyRefs[i]})
	}
	switch *goroot {
	case "off":
	case "auto":
		if p.gorootByDefault {
			out, err := exec.Command("go", "env", "GOROOT").Output()
			if err != nil {
				return nil, fmt.Errorf("go env GOROOT: %w", err)
			}
			cfg.goroot = filepath.Join(strings.TrimSpace(string(out)), "src")
		}
	default:
		cfg.goroot = *goroot
	}
	switch *govulndb {
	case "off":
	case "auto":
		if dir := filepath.Join(filepath.Dir(cfg.fixture), "vulncheck", "vulndb"); isDir(dir) {
			cfg.govulndb = dir
		}
	default:
		cfg.govulndb = *govulndb
	}
	for _, p := range []*string{&cfg.goplsmcp, &cfg.gopls, &cfg.fixture, &cfg.goroot, &cfg.answers, &cfg.govulndb, &cfg.soak.pprof} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		*p = abs
	}
	cfg.command = "goplsmcp-bench " + strings.Join(args, " ")
	return cfg, nil
}

// run is the whole program.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if cfg.mode == "generate" {
		return generateFixture(cfg.fixture)
	}
	for _, bin := range []string{cfg.goplsmcp, cfg.gopls} {
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("%s is missing: run make build first", bin)
		}
	}
	tmp, err := os.MkdirTemp("", "goplsmcp-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	b := &bench{cfg: cfg, plan: plans[cfg.mode], log: stderr, rep: &report{}, tmp: tmp, env: childEnv(cfg.govulndb), start: time.Now()}
	b.describeMachine(ctx)
	if err := b.runAll(ctx); err != nil {
		return err
	}
	var w io.Writer = stdout
	if cfg.out != "" {
		f, err := os.Create(cfg.out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = io.MultiWriter(stdout, f)
	}
	b.rep.write(w, cfg.command)
	return nil
}

// childEnv is the environment of every process the harness starts: the
// same for goplsmcp, gopls mcp and the direct client's gopls, and offline,
// as goplsmcp runs gopls; with GOVULNDB set to govulndb, if not "", for
// both servers' go_vulncheck.
func childEnv(govulndb string) []string {
	env := os.Environ()
	// No -mod flag: the go command's own module mode, as goplsmcp keeps it.
	set := []string{"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS="}
	if govulndb != "" {
		set = append(set, "GOVULNDB="+lspclient.FileURI(govulndb))
	}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		env = append(env, kv)
	}
	return env
}

// envFor is the environment of one side's processes: childEnv, with a
// gopls file cache of the side's own (GOPLSCACHE, kept for the run). gopls
// keeps type-checking and analysis results there, keyed by file contents
// and paths; shared, the side that asks second about the same text finds
// the first side's work done (the overlay server of the edit loop, on the
// direct client's copy, did), which measures the order, not the sides.
func (b *bench) envFor(side string) []string {
	dir := filepath.Join(b.tmp, "gopls-cache", side)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.logf("gopls cache of %s: %v; sharing the user's", side, err)
		return b.env
	}
	return append(slices.Clone(b.env), "GOPLSCACHE="+dir)
}

// bench is one run of the harness.
type bench struct {
	cfg  *config
	plan plan
	log  io.Writer
	rep  *report
	tmp  string
	env  []string
	// start is when the run began, for the progress log.
	start time.Time
	// expectGorootRefs is the number of references to net/http.Handler
	// (declaration included) found once warm, which a cold start's first
	// answer must reach to count as correct.
	expectGorootRefs int
}

// saveAnswer writes an answer's text into the -answers directory, named
// after the server, the workspace and the question.
func (b *bench) saveAnswer(server, ws, question, text string) {
	if b.cfg.answers == "" {
		return
	}
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, ws+"__"+question+"__"+server) + ".txt"
	if err := os.MkdirAll(b.cfg.answers, 0o755); err == nil {
		err = os.WriteFile(filepath.Join(b.cfg.answers, name), []byte(text), 0o644)
		if err != nil {
			b.logf("saving an answer: %v", err)
		}
	}
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "goplsmcp-bench: %6.1fs "+format+"\n", append([]any{time.Since(b.start).Seconds()}, args...)...)
}

func (b *bench) describeMachine(ctx context.Context) {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(strings.SplitN(string(data), "\n", 2)[0]); len(f) >= 2 {
			mem = ", " + f[1] + " kB RAM"
		}
	}
	version := func(name string, args ...string) string {
		out, err := exec.CommandContext(ctx, name, args...).Output()
		if err != nil {
			return "unknown"
		}
		return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	var goV, goplsV, oursV string
	var wg sync.WaitGroup
	wg.Go(func() { goV = version("go", "version") })
	wg.Go(func() { goplsV = version(b.cfg.gopls, "version") })
	wg.Go(func() { oursV = version(b.cfg.goplsmcp, "--gopls", b.cfg.gopls, "--version") })
	wg.Wait()
	b.rep.machine = []string{
		fmt.Sprintf("Date: %s", time.Now().UTC().Format("2006-01-02 15:04 UTC")),
		fmt.Sprintf("Machine: %s, %d CPUs%s, %s/%s, kernel %s", cpu, runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH, orUnknown(readTrim("/proc/sys/kernel/osrelease"))),
		fmt.Sprintf("Load average at start: %s", orUnknown(readTrim("/proc/loadavg"))),
		fmt.Sprintf("Go: %s", goV),
		fmt.Sprintf("gopls: %s (%s)", goplsV, b.cfg.gopls),
		fmt.Sprintf("goplsmcp: %s", oursV),
		fmt.Sprintf("Mode: %s", b.cfg.mode),
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// runAll runs the selected measurements: those on the fixture with one set
// of warm servers, then those on GOROOT/src with another, then the cold
// starts, which start their own.
func (b *bench) runAll(ctx context.Context) error {
	sec := b.cfg.sections
	fx, err := b.fixtureWorkspace("a")
	if err != nil {
		return err
	}
	if sec["overhead"] || sec["peers"] || sec["edit"] || sec["memory"] || sec["tokens"] || sec["concurrency"] {
		s, err := b.startAll(ctx, fx, sec["edit"], b.plan.settleMax)
		if err != nil {
			return err
		}
		err = b.fixtureSections(ctx, fx, s)
		s.close()
		if err != nil {
			return err
		}
	}
	var gr *workspace
	if b.cfg.goroot != "" {
		gr = gorootWorkspace(b.cfg.goroot)
		if sec["peers"] || sec["edit"] || sec["tokens"] {
			// One session, so that the tree is loaded once.
			s, err := b.startAll(ctx, gr, sec["edit"], b.plan.settleGorootMax)
			if err != nil {
				return err
			}
			err = b.gorootSections(ctx, gr, s)
			s.close()
			if err != nil {
				return err
			}
		}
	} else {
		b.rep.skipped = append(b.rep.skipped, "GOROOT/src (run with -mode full, or -goroot DIR)")
	}
	if sec["source"] {
		// On GOROOT/src when it is measured, else on the fixture.
		ws := fx
		if gr != nil {
			ws = gr
		}
		b.logf("source on %s", ws.name)
		if err := b.source(ctx, ws); err != nil {
			return fmt.Errorf("source: %w", err)
		}
	}
	if sec["cold"] {
		if err := b.coldStarts(ctx, fx, gr); err != nil {
			return err
		}
	}
	if sec["firstload"] {
		if err := b.firstLoad(ctx); err != nil {
			return fmt.Errorf("first answer on a large module: %w", err)
		}
	}
	if sec["share"] {
		if err := b.share(ctx, fx, gr); err != nil {
			return fmt.Errorf("share: %w", err)
		}
	}
	if sec["editor"] {
		// On GOROOT/src when it is measured: on the fixture the daemon's
		// own process is a large part of the memory compared.
		ws := fx
		if gr != nil {
			ws = gr
		}
		if err := b.editor(ctx, ws); err != nil {
			return fmt.Errorf("editor: %w", err)
		}
		if err := b.hopFloor(ctx, ws); err != nil {
			return fmt.Errorf("editor, the least one more process costs: %w", err)
		}
	}
	if sec["busy"] {
		if err := b.busy(ctx); err != nil {
			return fmt.Errorf("first answer on a busy machine: %w", err)
		}
	}
	if sec["soak"] {
		// On GOROOT/src when it is measured, else on the fixture.
		ws := fx
		if gr != nil {
			ws = gr
		}
		if err := b.soak(ctx, ws, b.cfg.soak); err != nil {
			return fmt.Errorf("soak: %w", err)
		}
	}
	b.logf("done")
	b.rep.machine = append(b.rep.machine, fmt.Sprintf("Load average at end: %s", orUnknown(readTrim("/proc/loadavg"))))
	b.sortTables()
	return nil
}

// gorootSections are the measurements made on GOROOT/src. The edit
// loop's edit comes before the tokens questions, which open files: both
// sides' gopls then hold the same files open (those of table 2 and the
// edited one), and so analyse the same packages after each edit.
func (b *bench) gorootSections(ctx context.Context, gr *workspace, s *servers) error {
	return b.runSections(ctx, gr, s, []section{
		{"peers", func() error { return b.peers(ctx, gr, s) }},
		{"edit", func() error { return b.crossEditLoop(ctx, gr, s) }},
		{"tokens", func() error { return b.tokens(ctx, gr, s) }},
	}, b.plan.settleGorootMax)
}

// A section is one measurement, run if selected.
type section struct {
	name string
	fn   func() error
}

func (b *bench) fixtureSections(ctx context.Context, fx *workspace, s *servers) error {
	return b.runSections(ctx, fx, s, []section{
		{"overhead", func() error { return b.overhead(ctx, fx, s) }},
		{"peers", func() error { return b.peers(ctx, fx, s) }},
		{"tokens", func() error { return b.tokens(ctx, fx, s) }},
		{"concurrency", func() error { return b.concurrency(ctx, fx, s) }},
		{"edit", func() error { return b.editLoop(ctx, fx, s) }},
		// Last, so that it counts every call made before it.
		{"memory", func() error { return b.memory(ctx, fx, s) }},
	}, b.plan.settleMax)
}

// runSections runs the selected steps on ws, each starting with gopls idle.
func (b *bench) runSections(ctx context.Context, ws *workspace, s *servers, steps []section, settleMax time.Duration) error {
	for _, st := range steps {
		if !b.cfg.sections[st.name] {
			continue
		}
		// Each section starts with gopls idle: the calls of the one
		// before may have left it diagnosing in the background.
		if b.plan.settleSections {
			if _, quiet := settle(ctx, s.pids(), settleMax); !quiet {
				b.logf("warning: gopls still busy before %s; measuring anyway", st.name)
			}
		}
		b.logf("%s on %s", st.name, ws.name)
		if err := st.fn(); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}

// sortTables puts the tables in section order, whatever order they were
// measured in.
func (b *bench) sortTables() {
	slices.SortStableFunc(b.rep.tables, func(x, y *table) int { return x.num - y.num })
}

// table returns the report's table number num with that title, creating
// it on first use. A section may have several tables, each its title.
func (b *bench) table(num int, title, intro string, header ...string) *table {
	title = fmt.Sprintf("%d. %s", num, title)
	for _, t := range b.rep.tables {
		if t.num == num && t.title == title {
			return t
		}
	}
	t := &table{num: num, title: title, intro: intro, header: header}
	b.rep.tables = append(b.rep.tables, t)
	return t
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
