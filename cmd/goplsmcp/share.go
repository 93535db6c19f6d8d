package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// Sharing (docs/daemon.md): a stdio goplsmcp with --share auto
// does not start gopls itself. It relays its session to a daemon — the same
// binary, as goplsmcp daemon serve — that serves every stdio session of
// this user on the same workspace over a unix socket in a directory only
// the user can open, starting that daemon if none runs.

// defaultIdle is how long a daemon lives on after its last session.
const defaultIdle = 10 * time.Minute

// Environment variables that configure sharing: GOPLSMCP_SHARE is the
// default of --share (so that a whole environment, such as a test run, can
// turn it off), GOPLSMCP_RUNTIME_DIR the directory of the sockets.
const (
	envShare      = "GOPLSMCP_SHARE"
	envRuntimeDir = "GOPLSMCP_RUNTIME_DIR"
)

// addShareFlags defines --share and --idle.
func addShareFlags(fs *flag.FlagSet, cfg *config) {
	cfg.share = "auto"
	if v := os.Getenv(envShare); v == "off" || v == "auto" {
		cfg.share = v
	}
	fs.Func("share", `stdio: "auto" (default) serves the session through this user's shared daemon for the workspace, started if none runs, so that sessions share one warm gopls; "off" starts a gopls of its own (default from $GOPLSMCP_SHARE)`, func(v string) error {
		if v != "auto" && v != "off" {
			return fmt.Errorf(`want auto or off`)
		}
		cfg.share = v
		return nil
	})
	cfg.idle = defaultIdle
	fs.Func("idle", "with --share auto: how long the shared daemon lives on after its last session ends (default 10m)", func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration, such as 10m")
		}
		cfg.idle = d
		return nil
	})
}

// sharing reports whether a stdio session should go through a daemon.
func (cfg *config) sharing() bool {
	return cfg.share == "auto" && cfg.http == "" && shareSupported
}

// A workspace is what identifies a daemon: the arguments it is started
// with and the key they hash to, with the files of that key.
type workspace struct {
	dir  string   // the runtime directory
	key  string   // the hash of everything that changes answers
	root string   // the resolved root
	args []string // the flags of goplsmcp daemon serve
}

func (ws *workspace) socket() string   { return filepath.Join(ws.dir, ws.key+".sock") }
func (ws *workspace) infoFile() string { return filepath.Join(ws.dir, ws.key+".json") }
func (ws *workspace) logFile() string  { return filepath.Join(ws.dir, ws.key+".log") }
func (ws *workspace) lockFile() string { return filepath.Join(ws.dir, ws.key+".lock") }
func (ws *workspace) String() string   { return ws.key + " (" + ws.root + ")" }

// errUntrusted marks what a session refuses to share through: a runtime
// directory others may write, a file in it that is not this user's own
// (of another user, a link, not of its kind), or a socket whose listener
// runs as another user. Any of them may have been planted, so the session
// neither uses it nor starts a daemon beside it: it serves with a gopls
// of its own.
var errUntrusted = errors.New("not trusted")

// dial connects to the workspace's daemon. Before anything is sent, the
// socket file must be this user's and the process listening on it must
// run as this user (the kernel says, see mcp.CheckLocalPeer): what a
// session sends is the user's unsaved text, and what it receives its
// client takes as gopls's answers. An error that is not errUntrusted
// means no daemon listens.
func (ws *workspace) dial() (net.Conn, error) {
	fi, err := os.Lstat(ws.socket())
	if err != nil {
		return nil, err
	}
	if err := privateFile(fi, fs.ModeSocket); err != nil {
		return nil, fmt.Errorf("%w: %s %v", errUntrusted, ws.socket(), err)
	}
	conn, err := net.Dial("unix", ws.socket())
	if err != nil {
		return nil, err
	}
	if err := mcp.CheckLocalPeer(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: the process listening on %s: %v", errUntrusted, ws.socket(), err)
	}
	return conn, nil
}

// newWorkspace resolves what cfg names into the daemon that serves it.
// Two sessions share a daemon exactly when everything that changes an
// answer is the same: the root, the gopls binary (path and the file
// itself, so a rebuilt gopls is another), the goplsmcp binary, every flag
// that reaches gopls or the tools, and the environment the go command
// reads.
func newWorkspace(cfg *config) (*workspace, error) {
	goplsPath, err := lspclient.Locate(cfg.gopls)
	if err != nil {
		return nil, &exitError{code: 2, msg: err.Error()}
	}
	if goplsPath, err = filepath.Abs(goplsPath); err != nil {
		return nil, err
	}
	root, err := resolveRoot(cfg.root)
	if err != nil {
		return nil, usageError("%v", err)
	}
	dir, err := runtimeDir()
	if err != nil {
		return nil, err
	}
	ws := &workspace{dir: dir, root: root, args: daemonArgs(cfg, root, goplsPath)}
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }
	for _, a := range ws.args {
		field(a)
	}
	field(fileIdentity(goplsPath))
	if exe, err := os.Executable(); err == nil {
		field(fileIdentity(exe))
	}
	field(version())
	for _, kv := range answerEnv() {
		field(kv)
	}
	ws.key = hex.EncodeToString(h.Sum(nil))[:16]
	return ws, nil
}

// fileIdentity stands for a binary's version without running it: its
// path, size and modification time.
func fileIdentity(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return path
	}
	return fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano())
}

// answerEnvVars are the environment variables that can change gopls's
// answers, and so the daemon a session shares: every variable `go help
// environment` lists as one the go command reads (the variables of its
// last part, "available from 'go env' but not read from the
// environment", are not: GOEXE, GOGCCFLAGS, GOHOSTARCH, GOHOSTOS, GOMOD,
// GOTELEMETRY, GOTELEMETRYDIR, GOTOOLDIR, GOVERSION; nor GOCOVERDIR, which
// only says where a binary built with -cover writes), those gopls and
// go/packages read themselves (GOPACKAGESDRIVER, GOPLSCACHE), and those
// that say where the go command, its caches and its configuration are
// found. One list, not a prefix: GOOGLE_APPLICATION_CREDENTIALS changes
// no answer and must not split a workspace. TestAnswerEnvCoversGoHelp
// holds it to the toolchain's own list.
var answerEnvVars = []string{
	// General-purpose (go help environment).
	"GCCGO", "GO111MODULE", "GOARCH", "GOAUTH", "GOBIN", "GOCACHE", "GOCACHEPROG", "GODEBUG", "GOENV",
	"GOFLAGS", "GOINSECURE", "GOMODCACHE", "GONOPROXY", "GONOSUMDB", "GOOS", "GOPATH", "GOPRIVATE",
	"GOPROXY", "GOROOT", "GOSUMDB", "GOTMPDIR", "GOTOOLCHAIN", "GOVCS", "GOWORK",
	// cgo.
	"AR", "CC", "CXX", "FC", "PKG_CONFIG", "CGO_ENABLED",
	"CGO_CFLAGS", "CGO_CFLAGS_ALLOW", "CGO_CFLAGS_DISALLOW",
	"CGO_CPPFLAGS", "CGO_CPPFLAGS_ALLOW", "CGO_CPPFLAGS_DISALLOW",
	"CGO_CXXFLAGS", "CGO_CXXFLAGS_ALLOW", "CGO_CXXFLAGS_DISALLOW",
	"CGO_FFLAGS", "CGO_FFLAGS_ALLOW", "CGO_FFLAGS_DISALLOW",
	"CGO_LDFLAGS", "CGO_LDFLAGS_ALLOW", "CGO_LDFLAGS_DISALLOW",
	// Architecture-specific.
	"GO386", "GOAMD64", "GOARM", "GOARM64", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM",
	// Special-purpose.
	"GCCGOTOOLDIR", "GOEXPERIMENT", "GOFIPS140", "GO_EXTLINK_ENABLED", "GIT_ALLOW_PROTOCOL",
	// Read by gopls and go/packages.
	"GOPACKAGESDRIVER", "GOPLSCACHE",
	// Where the go command, its caches and its configuration are found.
	"PATH", "HOME", "USERPROFILE", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "AppData", "LocalAppData",
}

// answerEnv is the part of the environment that can change gopls's
// answers (answerEnvVars, as set), sorted.
func answerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(answerEnvVars, k) {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	return env
}

// Every flag is given to the daemon by daemonArgs (daemonFlags), or to
// the daemon with each session's first line, for that session alone
// (helloFlags, see sessionHello), or concerns only the session's own
// process (sessionFlags); a test holds each new flag to one of the
// three, so that no flag is silently dropped when a session is served by
// a daemon. The flags of the first two kinds are apart so that they do
// not split the daemon: an agent started with --allow-write shares the
// gopls of the editor's goplsmcp lsp, and the refusal of an apply on a
// file the editor holds unsaved (docs/editors.md) holds for it.
var (
	daemonFlags = []string{"root", "gopls", "timeout", "max-message-bytes", "max-result-bytes", "max-text-chars", "idle", "load-timeout", "watch",
		"gopls-arg", "remote", "allow-network", "build-flags", "env", "settings"}
	helloFlags   = []string{"allow-write", "tools"}
	sessionFlags = []string{"stdio", "log-file", "log-level", "http", "token-file", "allow-host", "json", "version", "help", "share", "cpuprofile"}
)

// sessionSettings are the helloFlags, as a session's first line gives
// them to the daemon.
type sessionSettings struct {
	AllowWrite bool     `json:"allowWrite,omitempty"`
	Tools      []string `json:"tools,omitempty"`
}

// sessionHello is the first line a stdio session sends on its connection
// to the daemon: it makes the connection an MCP session (a client's own
// first line, whatever it says, is then MCP, never a raw handler's) and
// says what the session may do.
func sessionHello(cfg *config) string {
	data, _ := json.Marshal(sessionSettings{AllowWrite: cfg.allowWrite, Tools: cfg.tools})
	return mcp.RawHello(mcp.MCPHello, string(data))
}

// checkTools refuses a --tools list that names a tool no daemon has,
// before the session reaches one: the daemon would refuse the session.
func checkTools(tools []string) error {
	var unknown []string
	for _, name := range tools {
		if !slices.Contains(bridge.DefaultTools(), name) && !slices.Contains(bridge.OptionalTools, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return usageError("--tools: no such tool: %s; the tools are %s, and gopls mcp's optional %s", strings.Join(unknown, ", "),
			strings.Join(bridge.DefaultTools(), ", "), strings.Join(bridge.OptionalTools, ", "))
	}
	return nil
}

// helloConn connects to the workspace's daemon (see connectDaemon) and
// sends the session's first line.
func helloConn(ctx context.Context, cfg *config, ws *workspace, log *slog.Logger) (net.Conn, error) {
	conn, err := connectDaemon(ctx, ws, log)
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(conn, sessionHello(cfg)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("greeting the daemon: %w", err)
	}
	return conn, nil
}

// daemonArgs spells cfg as the flags of goplsmcp daemon serve, with paths
// made absolute: the daemon's whole configuration, and the key's.
func daemonArgs(cfg *config, root, goplsPath string) []string {
	args := []string{
		"--root", root,
		"--gopls", goplsPath,
		"--timeout", cfg.timeout.String(),
		"--max-message-bytes", strconv.Itoa(cfg.maxMessageBytes),
		"--max-result-bytes", strconv.Itoa(cfg.maxResultBytes),
		"--max-text-chars", strconv.Itoa(cfg.maxTextChars),
		"--idle", cfg.idle.String(),
		"--load-timeout", cfg.loadTimeout.String(),
		"--watch", cfg.watch,
	}
	for _, a := range cfg.goplsArgs {
		args = append(args, "--gopls-arg", a)
	}
	if cfg.remote != "" {
		args = append(args, "--remote", cfg.remote)
	}
	if cfg.network {
		args = append(args, "--allow-network")
	}
	for _, f := range cfg.buildFlags {
		args = append(args, "--build-flags", f)
	}
	for _, e := range cfg.env {
		args = append(args, "--env", e)
	}
	if cfg.settings != nil {
		data, _ := json.Marshal(cfg.settings) // map keys sorted: one spelling
		args = append(args, "--settings", string(data))
	}
	return args
}

// runtimeDir returns the directory of the daemons' sockets, made if need
// be: $GOPLSMCP_RUNTIME_DIR, else goplsmcp in $XDG_RUNTIME_DIR, else
// goplsmcp-UID in the temporary directory. It must be a directory of this
// user's that no one else may open (0700): whoever can reach a socket
// there can read the code of the workspace it serves.
func runtimeDir() (string, error) {
	dir := os.Getenv(envRuntimeDir)
	if dir == "" {
		if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
			dir = filepath.Join(x, "goplsmcp")
		} else {
			dir = filepath.Join(os.TempDir(), fmt.Sprintf("goplsmcp-%d", os.Getuid()))
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("making the runtime directory: %w", err)
	}
	// A directory others may write may hold anything they planted (a
	// socket of theirs under a computable name, a link where a log is
	// written): it is refused, not repaired. Only the user can open it
	// to others, and only the user can make it usable again, by
	// removing it.
	if err := privateDir(dir); err != nil {
		return "", fmt.Errorf("%w: runtime directory %v; remove it (rm -r %s) to share daemons again", errUntrusted, err, dir)
	}
	return dir, nil
}

// serveShared serves the stdio session through the workspace's daemon. A
// daemon that cannot be reached or started, or a runtime directory that
// is not safe, falls back to a gopls of its own, with a warning.
func serveShared(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) (served bool, err error) {
	logOut := stderr
	if cfg.logFile != "" {
		f, err := os.OpenFile(cfg.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return true, usageError("--log-file: %v", err)
		}
		defer f.Close()
		logOut = f
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: cfg.logLevel})).With("component", "share")
	if err := checkTools(cfg.tools); err != nil {
		return true, err
	}
	ws, err := newWorkspace(cfg)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return true, err
		}
		log.Warn("not sharing a daemon: serving with a gopls of its own", "error", err)
		return false, nil
	}
	conn, err := helloConn(ctx, cfg, ws, log)
	if err != nil {
		log.Warn("not sharing a daemon: serving with a gopls of its own", "error", err)
		return false, nil
	}
	log.Info("serving MCP on stdio through the shared daemon", "root", ws.root, "socket", ws.socket(), "goplsmcp_pid", os.Getpid())
	first := conn
	err = mcp.Proxy(ctx, stdin, stdout, &mcp.ProxyOptions{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			if first != nil {
				c := first
				first = nil
				return c, nil
			}
			return helloConn(ctx, cfg, ws, log)
		},
		Remember:        bridge.ReplayState,
		Unrepeatable:    bridge.Unrepeatable,
		Logger:          log,
		MaxMessageBytes: cfg.maxMessageBytes,
	})
	if first != nil {
		first.Close()
	}
	return true, err
}

// connectDaemon connects to the workspace's daemon, starting it if none
// runs. Starting is done under a lock, so that sessions starting together
// start one daemon.
func connectDaemon(ctx context.Context, ws *workspace, log *slog.Logger) (net.Conn, error) {
	if conn, err := ws.dial(); err == nil || errors.Is(err, errUntrusted) {
		return conn, err
	}
	unlock, err := lockFile(ws.lockFile())
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", ws.lockFile(), err)
	}
	defer unlock()
	if conn, err := ws.dial(); err == nil || errors.Is(err, errUntrusted) {
		return conn, err // another session started it meanwhile
	}
	log.Info("starting the shared daemon", "root", ws.root, "key", ws.key)
	if err := startDaemon(ctx, ws); err != nil {
		return nil, err
	}
	return ws.dial()
}

// daemonStartTimeout bounds the start of a daemon: its gopls started and
// initialized, its socket listening.
const daemonStartTimeout = 60 * time.Second

// startDaemon starts goplsmcp daemon serve for ws, detached (a session of
// its own, stdin and stdout on /dev/null, its log in the runtime
// directory), and waits until it says it serves, on a pipe it inherits.
func startDaemon(ctx context.Context, ws *workspace) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding goplsmcp's own binary: %w", err)
	}
	// Truncated only once it is known to be this user's own file: a link
	// planted there must not make the daemon's log overwrite another.
	logf, err := openPrivate(ws.logFile(), os.O_CREATE|os.O_WRONLY)
	if err != nil {
		return fmt.Errorf("opening the daemon's log: %w", err)
	}
	defer logf.Close()
	if err := logf.Truncate(0); err != nil {
		return fmt.Errorf("opening the daemon's log: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(exe, append([]string{"daemon", "serve", "--runtime-dir", ws.dir, "--key", ws.key, "--ready-fd", "3"}, ws.args...)...)
	cmd.Dir = ws.root
	cmd.Stderr = logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = detached()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("starting the daemon: %w", err)
	}
	// Reaped when it ends, so that it leaves no zombie behind while this
	// session lives on.
	go cmd.Wait()
	type result struct {
		line string
		err  error
	}
	ready := make(chan result, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		ready <- result{line, err}
	}()
	timer := time.NewTimer(daemonStartTimeout)
	defer timer.Stop()
	select {
	case res := <-ready:
		if strings.TrimSpace(res.line) == "ready" {
			return nil
		}
		return fmt.Errorf("the daemon did not start: %s", logTail(ws.logFile()))
	case <-timer.C:
		cmd.Process.Kill()
		return fmt.Errorf("the daemon did not start within %v", daemonStartTimeout)
	case <-ctx.Done():
		cmd.Process.Kill()
		return ctx.Err()
	}
}

// logTail is the last line of a daemon's log, to say why it failed.
func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "no log"
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[len(lines)-1]
}

// callShared makes goplsmcp call's call through the workspace's daemon, if
// one runs; it starts none. It reports false when there is no daemon, or
// the daemon refused the call as a request (an unknown tool): the caller
// then makes the call itself, which says what was wrong as it always has.
func callShared(ctx context.Context, cfg *config, tool string, args json.RawMessage) (*mcp.ToolResultJSON, bool) {
	if !cfg.sharing() {
		return nil, false
	}
	ws, err := newWorkspace(cfg)
	if err != nil {
		return nil, false
	}
	conn, err := ws.dial()
	if err != nil {
		return nil, false
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, sessionHello(cfg)); err != nil {
		return nil, false
	}
	client := mcp.NewClient(conn, conn)
	if _, err := client.Initialize(ctx, "2025-11-25"); err != nil {
		return nil, false
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := client.Call(ctx, "tools/list", nil, &list); err != nil ||
		!slices.ContainsFunc(list.Tools, func(t struct {
			Name string `json:"name"`
		}) bool {
			return t.Name == tool
		}) {
		return nil, false
	}
	res, err := client.CallTool(ctx, tool, args)
	var rpcErr *mcp.Error
	if err != nil && !errors.As(err, &rpcErr) {
		// The daemon went during the call: an apply may have written
		// files, and is never run again here (see bridge.Unrepeatable).
		if answer := bridge.Unrepeatable(tool, args); answer != "" {
			return &mcp.ToolResultJSON{Content: []mcp.Content{{Type: "text", Text: answer}}, IsError: true}, true
		}
	}
	if err != nil {
		return nil, false
	}
	return res, true
}
