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

// config is the parsed command line.
type config struct {
	root     string
	gopls    string
	logFile  string
	logLevel slog.Level
	timeout  time.Duration
	network  bool
	version  bool
	help     bool
}

const usage = `goplsmcp: an MCP server that answers questions about Go code by asking gopls.

Usage:
  goplsmcp [flags]               serve MCP on stdin/stdout
  goplsmcp config CLIENT         print the configuration snippet for claude, cursor, vscode, codex or gemini
  goplsmcp instructions          print the agent guidance, for AGENTS.md or CLAUDE.md

It speaks MCP over stdin and stdout, one JSON-RPC message per line, and
starts gopls as its child. Register it with an MCP client, for example in
.mcp.json:
  {"mcpServers": {"go": {"command": "/path/to/goplsmcp", "args": ["--root", "/path/to/module"]}}}

Flags:
`

func parseFlags(args []string, stderr io.Writer) (*config, *flag.FlagSet, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("goplsmcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("stdio", false, "serve MCP over stdin and stdout (the default; accepted for compatibility)")
	fs.StringVar(&cfg.root, "root", "", "workspace root; every file must resolve inside it (default: the current directory)")
	fs.StringVar(&cfg.gopls, "gopls", "", "path of the gopls binary (default: gopls beside goplsmcp, else on PATH)")
	fs.StringVar(&cfg.logFile, "log-file", "", "write the log to this file instead of stderr")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&cfg.timeout, "timeout", lspclient.DefaultTimeout, "bound on each request to gopls; a gopls that stops answering is restarted")
	fs.BoolVar(&cfg.network, "allow-network", false, "let gopls's go command download modules and toolchains (default: offline, GOPROXY=off GOTOOLCHAIN=local -mod=readonly)")
	fs.BoolVar(&cfg.version, "version", false, "print the versions of goplsmcp and gopls, then exit")
	fs.BoolVar(&cfg.help, "help", false, "print this help, then exit")
	for _, a := range args {
		// --help wins over everything else, even a bad flag before it.
		if a == "-help" || a == "--help" || a == "-h" || a == "--h" {
			cfg.help = true
			return cfg, fs, nil
		}
	}
	if err := fs.Parse(args); err != nil {
		return nil, fs, usageError("%v (see goplsmcp --help)", err)
	}
	if fs.NArg() > 0 {
		return nil, fs, usageError("unexpected argument %q (see goplsmcp --help)", fs.Arg(0))
	}
	if err := cfg.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return nil, fs, usageError("--log-level %q: want debug, info, warn or error", *level)
	}
	if cfg.timeout <= 0 {
		return nil, fs, usageError("--timeout must be positive")
	}
	return cfg, fs, nil
}

// run is the whole program: it parses args, starts gopls and serves MCP on
// stdin/stdout until stdin ends or ctx is cancelled.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "config":
			return runConfig(args[1:], stdout, stderr)
		case "instructions":
			fmt.Fprintln(stdout, bridge.Instructions)
			return nil
		}
	}
	cfg, fs, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.help {
		fmt.Fprint(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil
	}

	goplsPath, goplsErr := lspclient.Locate(cfg.gopls)
	if cfg.version {
		gv := "not found"
		if goplsErr == nil {
			gv = goplsVersion(ctx, goplsPath)
		}
		fmt.Fprintf(stdout, "goplsmcp %s (gopls %s)\n", version(), gv)
		return nil
	}
	if goplsErr != nil {
		return &exitError{code: 2, msg: goplsErr.Error()}
	}

	root, err := resolveRoot(cfg.root)
	if err != nil {
		return usageError("%v", err)
	}

	logOut := stderr
	if cfg.logFile != "" {
		f, err := os.OpenFile(cfg.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return usageError("--log-file: %v", err)
		}
		defer f.Close()
		logOut = f
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: cfg.logLevel}))

	if f, ok := stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintln(stderr, "goplsmcp speaks MCP on stdin/stdout; start it from an MCP client (see goplsmcp --help), or pipe JSON-RPC lines into it.")
		}
	}

	client, err := lspclient.Start(ctx, lspclient.Options{
		Gopls:        goplsPath,
		Root:         root,
		Logger:       log.With("component", "lspclient"),
		Timeout:      cfg.timeout,
		AllowNetwork: cfg.network,
	})
	if err != nil {
		return err
	}
	defer client.Close()

	br, err := bridge.New(bridge.Config{Root: root, Client: client, Logger: log.With("component", "bridge")})
	if err != nil {
		return err
	}
	srv := mcp.NewServer("goplsmcp", version(), &mcp.Options{
		Title:        "Go language server (gopls) for agents",
		Instructions: bridge.Instructions,
		Logger:       log.With("component", "mcp"),
	})
	if err := br.Register(srv); err != nil {
		return err
	}
	log.Info("serving MCP on stdio", "root", root, "gopls", client.Version(), "pid", client.PID(),
		"offline", !cfg.network, "goplsmcp_pid", os.Getpid())
	err = srv.ServeStdio(ctx, stdin, stdout)
	if cerr := client.Close(); err == nil {
		err = cerr
	}
	log.Info("stopped")
	return err
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
func version() string {
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
