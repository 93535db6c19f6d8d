package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// exitError ends the program with a given status and message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageError(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

const usage = `goplsmcp: an MCP server that answers questions about Go code by asking gopls.

Usage:
  goplsmcp [flags]                           serve MCP on stdin/stdout
  goplsmcp --http ADDR [flags]               serve MCP over Streamable HTTP at http://ADDR/mcp
  goplsmcp [flags] call [flags] TOOL [ARGS]  make one tool call and print its answer
  goplsmcp config CLIENT [--root DIR]        print the configuration snippet for claude, cursor, vscode, codex or gemini
  goplsmcp config CLIENT --url URL           ... the snippet that connects to a goplsmcp serving --http at URL
  goplsmcp config codex --write              merge the snippet into Codex's config.toml
  goplsmcp instructions                      print the agent guidance, for AGENTS.md or CLAUDE.md
  goplsmcp rules [--write] [CLIENT...]       print (or write) GOPLSMCP.md and a stub per client: CLAUDE.md, AGENTS.md, ...
  goplsmcp daemon list|stop [--root DIR]     the shared daemons that serve stdio sessions (see --share)

Each subcommand's --help says more. Flags before a subcommand apply to it
where it has a use for them (goplsmcp --root DIR config claude).

It speaks MCP over stdin and stdout, one JSON-RPC message per line, and
shares one gopls per workspace with this user's other stdio sessions
through a daemon it starts if none runs (--share off: a gopls of its
own). Register it with an MCP client, for example in
.mcp.json:
  {"mcpServers": {"go": {"command": "/path/to/goplsmcp", "args": ["--root", "/path/to/module"]}}}

goplsmcp call starts the same server in-process, makes one call and stops.
ARGS is the tool's arguments as a JSON object (default {}), or - to read
them from stdin; flags go before TOOL. It prints the answer's text (with
--json, its structured result) on stdout and exits 0, or 1 when the tool
reports an error (its message on stderr, or the JSON on stdout with
--json), or 2 on a usage error: bad flags, ARGS that are not a JSON
object, an unknown tool. Example:
  goplsmcp call --root . go_definition '{"file":"main.go","symbol":"main"}'

Flags:
`

// run is the whole program: it parses args, starts gopls and serves MCP on
// stdin/stdout until stdin ends or ctx is cancelled; or it runs one of the
// subcommands.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// Editors put the flags they pass gopls before the words of its
	// command line they are given (go.languageServerFlags): goplsmcp
	// -mode=stdio lsp is goplsmcp lsp.
	if i := slices.Index(args, "lsp"); i > 0 && len(splitLSPArgs(args[:i])) == 0 {
		return runLSP(ctx, append(slices.Clone(args[:i]), args[i+1:]...), stdin, stdout, stderr)
	}
	if len(args) > 0 && subcommands[args[0]] {
		return runSubcommand(ctx, args[0], args[1:], globals{}, stdin, stdout, stderr)
	}
	cfg := &config{}
	fs := newFlagSet(cfg)
	addHiddenFlags(fs, cfg)
	parseErr := fs.Parse(args)
	// A subcommand may follow the flags: those before it that it has a
	// use for apply to it (goplsmcp --root DIR config claude).
	if parseErr == nil && !cfg.help && fs.NArg() > 0 && subcommands[fs.Arg(0)] {
		return runSubcommand(ctx, fs.Arg(0), fs.Args()[1:], globalsOf(fs, cfg), stdin, stdout, stderr)
	}
	if wantsHelp(args) {
		help := newFlagSet(&config{})
		help.SetOutput(stdout)
		if parseErr == nil && !cfg.help && fs.NArg() > 0 && fs.Arg(0) == "call" {
			fmt.Fprint(stdout, callUsage)
		} else {
			fmt.Fprint(stdout, usage)
		}
		help.PrintDefaults()
		return nil
	}
	if parseErr != nil {
		return flagError(parseErr)
	}
	if cfg.cpuProfile != "" {
		stop, err := startCPUProfile(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if fs.NArg() > 0 && fs.Arg(0) == "call" {
		// Flags may follow the word call too.
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return flagError(err)
		}
		if err := cfg.check(); err != nil {
			return err
		}
		return runCall(ctx, cfg, fs.Args(), stdin, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q (see goplsmcp --help)", fs.Arg(0))
	}
	if err := cfg.check(); err != nil {
		return err
	}
	if cfg.json {
		return usageError("--json is for goplsmcp call (see goplsmcp --help)")
	}
	if cfg.version {
		gv := "not found"
		if goplsPath, err := lspclient.Locate(cfg.gopls); err == nil {
			gv = goplsVersion(ctx, goplsPath)
		}
		fmt.Fprintf(stdout, "goplsmcp %s (gopls %s)\n", version(), gv)
		return nil
	}

	if cfg.sharing() {
		if served, err := serveShared(ctx, cfg, stdin, stdout, stderr); served {
			return err
		}
	}

	// Over HTTP, the port is taken before gopls starts, so that a port in
	// use fails at once; and the token is settled.
	var web *httpServing
	if cfg.http != "" {
		outliveShell()
		var err error
		if web, err = listenHTTP(cfg, stderr); err != nil {
			return err
		}
		defer web.ln.Close()
	}
	st, err := startStack(ctx, cfg, stderr, false)
	if err != nil {
		return err
	}
	defer st.close()
	if web != nil {
		err = web.serve(ctx, st.srv, st.log, st.root, st.client)
	} else {
		if f, ok := stdin.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				fmt.Fprintln(stderr, "goplsmcp speaks MCP on stdin/stdout; start it from an MCP client (see goplsmcp --help), or pipe JSON-RPC lines into it.")
			}
		}
		st.log.Info("serving MCP on stdio", "root", st.root, "gopls", st.client.Version(), "pid", st.client.PID(),
			"offline", !cfg.network, "remote", cfg.remote, "allow_write", cfg.allowWrite, "goplsmcp_pid", os.Getpid())
		err = st.srv.ServeStdio(ctx, stdin, stdout)
	}
	if cerr := st.close(); err == nil {
		err = cerr
	}
	st.log.Info("stopped")
	return err
}

// callUsage is goplsmcp call --help, before the flags.
const callUsage = `usage: goplsmcp [flags] call [flags] TOOL [ARGS]

Starts the server in-process, makes one tool call, prints its answer and
stops. ARGS is the tool's arguments as a JSON object (default {}), or - to
read them from stdin; flags go before TOOL, before or after the word call.
It prints the answer's text (with --json, its structured result) on stdout
and exits 0, or 1 when the tool reports an error, or 2 on a usage error.
Example:
  goplsmcp call --root . go_definition '{"file":"main.go","symbol":"main"}'

Flags:
`

// subcommands are the words that name a subcommand, at the start or after
// the flags. call, which takes every flag, is not among them: it is the
// server's own run, for one call.
var subcommands = map[string]bool{"config": true, "instructions": true, "rules": true, "daemon": true, "lsp": true}

// globals are the flags given before a subcommand's name.
type globals struct {
	set  []string // their names, in the order the flag package visits them
	root string
	json bool
}

// globalsOf collects the flags fs parsed before a subcommand.
func globalsOf(fs *flag.FlagSet, cfg *config) globals {
	g := globals{root: cfg.root, json: cfg.json}
	fs.Visit(func(f *flag.Flag) { g.set = append(g.set, f.Name) })
	return g
}

// only refuses the flags given before the subcommand cmd other than
// those it takes.
func (g globals) only(cmd string, takes ...string) error {
	for _, name := range g.set {
		if slices.Contains(takes, name) {
			continue
		}
		if len(takes) == 0 {
			return usageError("--%s does not apply to goplsmcp %s, which takes no flags before its name (see goplsmcp %s --help)", name, cmd, cmd)
		}
		return usageError("--%s does not apply to goplsmcp %s; of the flags before its name, it takes only --%s (see goplsmcp %s --help)", name, cmd, strings.Join(takes, " and --"), cmd)
	}
	return nil
}

// runSubcommand runs config, instructions, rules or daemon, with args the
// words after its name and g the flags before it.
func runSubcommand(ctx context.Context, cmd string, args []string, g globals, stdin io.Reader, stdout, stderr io.Writer) error {
	switch cmd {
	case "config":
		if err := g.only(cmd, "root"); err != nil {
			return err
		}
		return runConfig(args, g.root, stdout, stderr)
	case "instructions":
		if err := g.only(cmd); err != nil {
			return err
		}
		if wantsHelp(args) {
			fmt.Fprintln(stdout, "usage: goplsmcp instructions\n\nPrints the agent guidance goplsmcp sends at initialize, for an AGENTS.md or CLAUDE.md\n(goplsmcp rules writes it into the files each client reads).")
			return nil
		}
		if len(args) > 0 {
			return usageError("goplsmcp instructions: unexpected argument %q; it takes none", shortArg(args[0]))
		}
		fmt.Fprintln(stdout, bridge.Instructions)
		return nil
	case "rules":
		if err := g.only(cmd, "root"); err != nil {
			return err
		}
		return runRules(args, g.root, stdout, stderr)
	case "daemon":
		return runDaemon(ctx, args, g, stdout, stderr)
	case "lsp":
		if err := g.only(cmd); err != nil {
			return err
		}
		return runLSP(ctx, args, stdin, stdout, stderr)
	}
	return usageError("unknown subcommand %q", cmd)
}

// subcommandHelp prints a subcommand's usage, then its flags, on stdout:
// its answer to --help.
func subcommandHelp(stdout io.Writer, head string, fs *flag.FlagSet) error {
	fmt.Fprintf(stdout, "%s\n\nFlags:\n", head)
	fs.SetOutput(stdout)
	fs.PrintDefaults()
	return nil
}

// startCPUProfile starts profiling the process into path and returns
// the function that ends the profile and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, usageError("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// flagError words a flag parsing error as a usage error, naming flags as
// the help does.
func flagError(err error) error {
	msg := strings.Replace(err.Error(), "for flag -", "for --", 1)
	return usageError("%s (see goplsmcp --help)", msg)
}

// drainTimeout is how long, after SIGTERM or SIGINT, the calls in flight
// may take to be answered while new ones are refused. The whole stop must
// fit in drainBound: the drain, then cancelling what is left and closing
// the HTTP server (well under half a second once the calls have ended),
// then stopping gopls (at most 1.6 s, when gopls ignores shutdown).
const (
	drainBound   = 5 * time.Second
	drainTimeout = 2500 * time.Millisecond
)

// A stack is goplsmcp's running parts: gopls (through the client), the
// bridge's tools and the MCP server. Serving and goplsmcp call build it
// the same way.
type stack struct {
	root    string
	log     *slog.Logger
	srv     *mcp.Server
	client  *lspclient.Client
	br      *bridge.Bridge
	closers []func() error
}

// startStack starts gopls and builds the server for cfg. Problems with
// the command line are usage errors (exit 2). For a one-shot call, and
// for a server of many sessions, gopls's own messages go to the log
// rather than to MCP clients.
func startStack(ctx context.Context, cfg *config, stderr io.Writer, oneShot bool) (_ *stack, err error) {
	goplsPath, err := lspclient.Locate(cfg.gopls)
	if err != nil {
		return nil, &exitError{code: 2, msg: err.Error()}
	}
	root, err := resolveRoot(cfg.root)
	if err != nil {
		return nil, usageError("%v", err)
	}
	st := &stack{root: root}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	logOut := stderr
	if cfg.logFile != "" {
		f, err := os.OpenFile(cfg.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, usageError("--log-file: %v", err)
		}
		st.closers = append(st.closers, f.Close)
		logOut = f
	}
	level := cfg.logLevel
	if oneShot && !cfg.logLevelSet {
		level = slog.LevelWarn
	}
	st.log = slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))

	// Every way of serving a root starts here: an apply a crash cut short
	// is rolled back before gopls reads the files (docs/safety.md).
	journal, err := bridge.JournalDir(root)
	if err != nil {
		st.log.Warn("applies keep no journal, so a crash during one may leave it half done", "error", err)
	} else if err := bridge.RecoverWrites(journal, root, st.log.With("component", "journal")); err != nil {
		st.log.Error("an apply a crash cut short could not be fully rolled back; it is tried again at the next start", "error", err)
	}

	limits := bridge.Limits{
		MessageBytes: cfg.maxMessageBytes,
		ResultBytes:  cfg.maxResultBytes,
		TextChars:    cfg.maxTextChars,
		Timeout:      cfg.timeout,
	}
	// The server exists before gopls starts so that gopls's messages from
	// the start can reach the clients (at the level each one set).
	st.srv = mcp.NewServer("goplsmcp", version(), &mcp.Options{
		Title:           "Go language server (gopls) for agents",
		Instructions:    instructions(cfg.tools),
		Logger:          st.log.With("component", "mcp"),
		MaxMessageBytes: limits.MessageBytes,
		MaxResultBytes:  limits.ResultBytes,
		DrainTimeout:    drainTimeout,
	})
	onMessage := func(level slog.Level, text string) { st.srv.Log(mcpLevel(level), "gopls", text) }
	// gopls's messages concern whatever it holds, and on a server of many
	// sessions (a shared daemon, --http) that is, now and then, another
	// session's unsaved files: its loads name them (query=[file=...]),
	// its load errors quote them. No message says which session it is
	// about, so there they go to the server's log alone; what a session
	// needs of them its tools answer (go_workspace's loadError,
	// go_diagnostics). See docs/safety.md.
	if oneShot || cfg.daemon || cfg.http != "" {
		goplsLog := st.log.With("component", "gopls")
		onMessage = func(level slog.Level, text string) { goplsLog.Log(context.Background(), level, text) }
	}
	st.client, err = lspclient.Start(ctx, lspclient.Options{
		Gopls:        goplsPath,
		Args:         cfg.goplsArgs,
		Remote:       cfg.remote,
		Root:         root,
		Watch:        cfg.watch,
		Settings:     cfg.goplsSettings(),
		Logger:       st.log.With("component", "lspclient"),
		Timeout:      cfg.timeout,
		LoadTimeout:  cfg.loadTimeout,
		AllowNetwork: cfg.network,
		OnMessage:    onMessage,
	})
	if err != nil {
		// A gopls too old is refused as a missing one is: exit 2.
		var old *lspclient.UnsupportedGoplsError
		if errors.As(err, &old) {
			return nil, &exitError{code: 2, msg: err.Error()}
		}
		if cfg.remote != "" {
			err = fmt.Errorf("%w (is the gopls daemon at --remote %s running?)", err, cfg.remote)
		}
		return nil, err
	}
	st.closers = append(st.closers, st.client.Close)

	allowWrite, tools := cfg.allowWrite, cfg.tools
	if cfg.daemon {
		// What each session may do, and its tools, its first line says
		// (see sessionHello): the daemon can do all of it.
		allowWrite, tools = true, bridge.OptionalTools
	}
	br, err := bridge.New(bridge.Config{
		Root: root, Client: st.client, Logger: st.log.With("component", "bridge"), Limits: limits,
		AllowWrite: allowWrite, JournalDir: journal, BuildContext: cfg.buildContext(), Tools: tools,
	})
	if err != nil {
		return nil, err
	}
	st.br = br
	if err := br.Register(st.srv); err != nil {
		return nil, err
	}
	if cfg.tools != nil && !cfg.daemon {
		if err := st.srv.KeepTools(cfg.tools); err != nil {
			return nil, usageError("--tools: %v; the tools are %s, and gopls mcp's optional %s", err, strings.Join(st.srv.ToolNames(), ", "), strings.Join(bridge.OptionalTools, ", "))
		}
	}
	return st, nil
}

// close stops gopls and closes the log file. Closing twice does nothing.
func (st *stack) close() error {
	var errs []error
	for i := len(st.closers) - 1; i >= 0; i-- {
		errs = append(errs, st.closers[i]())
	}
	st.closers = nil
	return errors.Join(errs...)
}

// mcpLevel maps a log level of gopls's messages to MCP's.
func mcpLevel(l slog.Level) mcp.LogLevel {
	switch {
	case l >= slog.LevelError:
		return mcp.LevelError
	case l >= slog.LevelWarn:
		return mcp.LevelWarning
	case l >= slog.LevelInfo:
		return mcp.LevelInfo
	}
	return mcp.LevelDebug
}

// resolveRoot makes the root absolute and free of symbolic links.
func resolveRoot(root string) (string, error) {
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		root = wd
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("--root %s: %v", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("--root %s: %v", root, errors.Unwrap(err))
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--root %s is not a directory", root)
	}
	return real, nil
}

// version is goplsmcp's version from its build information: the module
// version when installed with go install, else the VCS revision.
// releaseVersion is the version make dist names the release archives with
// (-X main.releaseVersion=...), for binaries built without VCS stamping.
var releaseVersion string

func version() string {
	if releaseVersion != "" {
		return releaseVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if v != "" && v != "(devel)" {
		return v
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified == "true" {
			rev += "-dirty"
		}
		return "devel-" + rev
	}
	return "devel"
}

// instructions is the guidance for a server offering tools, or every
// tool when tools is nil: it names only the tools offered.
func instructions(tools []string) string {
	if tools == nil {
		return bridge.Instructions
	}
	return bridge.InstructionsFor(func(tool string) bool { return slices.Contains(tools, tool) })
}

// goplsVersion asks a gopls binary for its version.
func goplsVersion(ctx context.Context, path string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return "unknown"
	}
	// "golang.org/x/tools/gopls v0.23.0" on the first line.
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if f := strings.Fields(first); len(f) >= 2 {
		return f[len(f)-1]
	}
	return first
}
