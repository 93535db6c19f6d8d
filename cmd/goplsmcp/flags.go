package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// config is the parsed command line.
type config struct {
	root        string
	gopls       string
	goplsArgs   []string
	remote      string
	watch       string
	logFile     string
	logLevel    slog.Level
	logLevelSet bool
	timeout     time.Duration
	loadTimeout time.Duration
	network     bool
	allowWrite  bool
	tools       []string // nil: every tool
	// The build context, fixed at launch: --build-flags, --env and
	// --settings.
	buildFlags []string
	env        []string
	settings   map[string]any
	version    bool
	help       bool
	// json prints a goplsmcp call's structured result.
	json bool
	// http is the address to serve Streamable HTTP on, "" for stdio;
	// tokenFile holds its bearer token.
	http      string
	tokenFile string
	// allowHosts are more names clients may give in the Host header.
	allowHosts []string

	// The limits of docs/safety.md.
	maxMessageBytes int
	maxResultBytes  int
	maxTextChars    int

	// share is --share, auto or off; idle is how long a shared daemon
	// lives on after its last session (see share.go).
	share string
	idle  time.Duration
	// daemon is set for goplsmcp daemon serve: one gopls serves the
	// sessions of many clients (see startStack).
	daemon bool

	// cpuProfile names a file for a CPU profile of the whole run
	// (--cpuprofile, hidden: see addHiddenFlags).
	cpuProfile string
}

// stringList is a flag that may be repeated, collecting its values.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// newFlagSet defines goplsmcp's flags, filling cfg as they are parsed.
// goplsmcp call accepts the same ones, and --json.
func newFlagSet(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("goplsmcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("stdio", false, "serve MCP over stdin and stdout (the default; accepted for compatibility)")
	fs.StringVar(&cfg.root, "root", "", "workspace root; every file must resolve inside it (default: the current directory)")
	fs.StringVar(&cfg.gopls, "gopls", "", "path of the gopls binary (default: gopls beside goplsmcp, else on PATH)")
	fs.Var((*stringList)(&cfg.goplsArgs), "gopls-arg", "an extra argument for gopls, before its serve command (repeatable), e.g. -remote.logfile=auto")
	fs.StringVar(&cfg.watch, "watch", "auto", "how changes on disk are seen: auto (inotify on Linux, else poll), inotify, poll (a scan of the tree at each call, bounded descriptors) or off (only open documents)")
	fs.StringVar(&cfg.remote, "remote", "", `share a gopls daemon: "auto" (the one editors started with gopls -remote=auto share; started if none runs), or its address: "unix;PATH" or HOST:PORT`)
	fs.StringVar(&cfg.logFile, "log-file", "", "write the log to this file instead of stderr")
	fs.Func("log-level", "log level: debug, info (default; warn for goplsmcp call), warn or error", func(v string) error {
		if err := cfg.logLevel.UnmarshalText([]byte(v)); err != nil {
			return fmt.Errorf("want debug, info, warn or error")
		}
		cfg.logLevelSet = true
		return nil
	})
	fs.DurationVar(&cfg.timeout, "timeout", lspclient.DefaultTimeout, "bound on each request to gopls once the workspace is loaded; a gopls that stops answering is restarted")
	fs.DurationVar(&cfg.loadTimeout, "load-timeout", lspclient.DefaultLoadTimeout, "bound on the wait for gopls to load the workspace, which calls made during the load wait for before --timeout counts")
	fs.IntVar(&cfg.maxMessageBytes, "max-message-bytes", mcp.DefaultMaxMessageBytes, "largest incoming message, in bytes; a longer line is refused with -32600")
	fs.IntVar(&cfg.maxResultBytes, "max-result-bytes", mcp.DefaultMaxResultBytes, "largest tool result, in bytes of JSON; a larger one becomes an error result saying how to narrow the call")
	fs.IntVar(&cfg.maxTextChars, "max-text-chars", bridge.DefaultTextChars, "most characters of source in one text argument (unsaved file text or a snippet)")
	fs.BoolVar(&cfg.network, "allow-network", false, "let gopls's go command download modules and toolchains (default: offline, GOPROXY=off GOTOOLCHAIN=local, -mod=mod dropped from GOFLAGS)")
	fs.StringVar(&cfg.http, "http", "", "serve MCP over Streamable HTTP at http://ADDR/mcp instead of stdio, e.g. 127.0.0.1:8765 (a non-loopback address needs --token-file)")
	fs.StringVar(&cfg.tokenFile, "token-file", "", "with --http: file holding the bearer token clients must send (default: a random token, printed to stderr)")
	fs.Func("allow-host", "with --http: a host name clients may use to reach the server, such as a Kubernetes Service's, besides loopback names, IP addresses, the --http name and this machine's name (repeatable)", func(v string) error {
		if v == "" || strings.ContainsAny(v, ":/?#@ \t") {
			return fmt.Errorf("want a host name without a port, e.g. goplsmcp.dev.svc")
		}
		cfg.allowHosts = append(cfg.allowHosts, v)
		return nil
	})
	fs.BoolVar(&cfg.allowWrite, "allow-write", false, "let go_rename_symbol, go_format, go_organize_imports and go_code_actions write their edits when a call says apply: true")
	fs.Func("tools", "offer only these tools, a comma-separated list (default: all)", func(v string) error {
		var names []string
		for n := range strings.SplitSeq(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return fmt.Errorf("name at least one tool")
		}
		cfg.tools = append(cfg.tools, names...)
		return nil
	})
	fs.Func("build-flags", "build flags for gopls, space-separated, e.g. -tags=integration (gopls's buildFlags setting; repeatable)", func(v string) error {
		cfg.buildFlags = append(cfg.buildFlags, strings.Fields(v)...)
		return nil
	})
	fs.Func("env", "KEY=VALUE for the go command gopls runs (gopls's env setting; repeatable); offline settings still win unless --allow-network", func(v string) error {
		k, _, ok := strings.Cut(v, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\n") {
			return fmt.Errorf("want KEY=VALUE")
		}
		cfg.env = append(cfg.env, v)
		return nil
	})
	fs.Func("settings", "gopls settings, a JSON object or @FILE holding one, e.g. '{\"staticcheck\":true}'", func(v string) error {
		s, err := parseSettings(v)
		if err != nil {
			return err
		}
		cfg.settings = s
		return nil
	})
	fs.BoolVar(&cfg.json, "json", false, "goplsmcp call: print the structured result as JSON instead of the text")
	fs.BoolVar(&cfg.version, "version", false, "print the versions of goplsmcp and gopls, then exit")
	fs.BoolVar(&cfg.help, "help", false, "print this help, then exit")
	addShareFlags(fs, cfg)
	return fs
}

// addHiddenFlags defines the flags that --help does not list: tools for
// measuring goplsmcp itself, not for using it. --cpuprofile FILE writes a
// CPU profile (pprof) of the run to FILE when goplsmcp stops; BENCHMARKS.md
// says how it is used.
func addHiddenFlags(fs *flag.FlagSet, cfg *config) {
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
}

// wantsHelp reports whether args ask for help anywhere: --help wins over
// everything else, even a bad flag before it.
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-help" || a == "--help" || a == "-h" || a == "--h" {
			return true
		}
	}
	return false
}

// check validates what no single flag can: the parsed values together.
func (cfg *config) check() error {
	if cfg.timeout <= 0 {
		return usageError("--timeout must be positive")
	}
	if cfg.loadTimeout <= 0 {
		return usageError("--load-timeout must be positive")
	}
	for _, l := range []struct {
		name     string
		val, min int
	}{
		// Below these a session could not even initialize, or an error
		// result would not fit.
		{"--max-message-bytes", cfg.maxMessageBytes, 1024},
		{"--max-result-bytes", cfg.maxResultBytes, 1024},
		{"--max-text-chars", cfg.maxTextChars, 1},
	} {
		if l.val < l.min {
			return usageError("%s must be at least %d", l.name, l.min)
		}
	}
	if cfg.remote != "" && strings.TrimSpace(cfg.remote) == "" {
		return usageError(`--remote wants "auto" or the address of a gopls daemon`)
	}
	if err := checkRemote(cfg.remote, runtime.GOOS); err != nil {
		return err
	}
	if !slices.Contains(lspclient.WatchStrategies, cfg.watch) {
		return usageError("--watch wants one of %s", strings.Join(lspclient.WatchStrategies, ", "))
	}
	if cfg.watch == "inotify" && runtime.GOOS != "linux" {
		return usageError("--watch inotify is only on Linux; poll works everywhere")
	}
	return cfg.checkHTTP()
}

// parseSettings reads --settings: a JSON object, inline or in a file
// named after @. The settings goplsmcp relies on may not be changed, and
// env and buildFlags must have the types gopls wants.
func parseSettings(v string) (map[string]any, error) {
	data := []byte(v)
	if name, ok := strings.CutPrefix(v, "@"); ok {
		var err error
		if data, err = os.ReadFile(name); err != nil {
			return nil, fmt.Errorf("reading %s: %v", name, unwrapPath(err))
		}
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil || s == nil {
		return nil, fmt.Errorf("want a JSON object of gopls settings, such as {\"staticcheck\": true}")
	}
	for _, k := range lspclient.FixedSettings() {
		if _, ok := s[k]; ok {
			return nil, fmt.Errorf("goplsmcp relies on the gopls setting %s; leave it out", k)
		}
	}
	if env, ok := s["env"]; ok {
		m, isMap := env.(map[string]any)
		for _, val := range m {
			if _, isString := val.(string); !isString {
				isMap = false
			}
		}
		if !isMap {
			return nil, fmt.Errorf(`"env" must be an object of strings`)
		}
	}
	if flags, ok := s["buildFlags"]; ok {
		list, isList := flags.([]any)
		for _, f := range list {
			if _, isString := f.(string); !isString {
				isList = false
			}
		}
		if !isList {
			return nil, fmt.Errorf(`"buildFlags" must be an array of strings`)
		}
	}
	return s, nil
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// goplsSettings merges the build context into the gopls settings: those
// of --settings, with the --build-flags appended to its buildFlags and the
// --env pairs set in its env.
func (cfg *config) goplsSettings() map[string]any {
	s := maps.Clone(cfg.settings)
	if s == nil {
		s = map[string]any{}
	}
	if len(cfg.buildFlags) > 0 {
		flags, _ := s["buildFlags"].([]any)
		flags = slices.Clone(flags)
		for _, f := range cfg.buildFlags {
			flags = append(flags, f)
		}
		s["buildFlags"] = flags
	}
	if len(cfg.env) > 0 {
		env := map[string]any{}
		if given, ok := s["env"].(map[string]any); ok {
			maps.Copy(env, given)
		}
		for _, kv := range cfg.env {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		s["env"] = env
	}
	if len(s) == 0 {
		return nil
	}
	return s
}

// buildContext counts the build context given, for go_workspace and
// goplsmcp://limits.
func (cfg *config) buildContext() bridge.BuildContext {
	return bridge.BuildContext{BuildFlags: len(cfg.buildFlags), Env: len(cfg.env), Settings: len(cfg.settings)}
}

// checkRemote refuses a unix socket address where the system has none to
// offer gopls: Windows, where gopls's daemon listens on TCP (that is what
// "auto" uses there) and --remote takes HOST:PORT.
func checkRemote(remote, goos string) error {
	if goos == "windows" && strings.HasPrefix(remote, "unix;") {
		return usageError(`--remote %s: unix sockets are not used on Windows; give "auto" or HOST:PORT`, remote)
	}
	return nil
}
