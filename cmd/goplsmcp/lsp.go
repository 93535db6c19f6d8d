package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// goplsmcp lsp is an editor's gopls (docs/editors.md): the editor's LSP
// session over stdio, relayed to the workspace's shared daemon, which
// serves it with the gopls its agents' sessions use.

const lspUsage = `usage: goplsmcp lsp [--share-unsaved] [goplsmcp flags] [gopls flags]

Serves an editor's LSP session over stdio with the gopls of the workspace's
shared daemon (started if none runs), the one its agents' sessions use. The
flags editors pass gopls (-mode=stdio, -rpc.trace, -logfile, -remote, serve,
-v, ...) are accepted and ignored. See docs/editors.md.`

// lspHandler is the name of the daemon's raw handler for editors, and
// lspShareUnsaved the argument that gives agents the editor's unsaved
// text.
const (
	lspHandler      = "lsp"
	lspShareUnsaved = "share-unsaved"
)

// goplsFlags are the flags of gopls (and its serve command) an editor may
// pass: they concern the gopls process an editor would start, not the
// shared one, and are ignored. A flag with a value is given here with
// the value's presence: true when it takes one.
var goplsFlags = map[string]bool{
	"mode": true, "logfile": true, "remote": true, "remote.debug": true, "remote.listen.timeout": true,
	"remote.logfile": true, "listen": true, "listen.timeout": true, "port": true, "debug": true,
	"ocagent": true, "profile.cpu": true, "profile.mem": true, "profile.alloc": true, "profile.trace": true,
	"profile.block": true, "rpc.trace": false, "v": false, "vv": false, "verbose": false, "remote.debug.listen": true,
}

// splitLSPArgs drops gopls's own flags and serve/-- words from args.
func splitLSPArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "serve" || a == "--" {
			continue
		}
		name := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") {
			n, _, hasValue := strings.Cut(name, "=")
			if takes, ok := goplsFlags[n]; ok {
				if takes && !hasValue && i+1 < len(args) {
					i++
				}
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// runLSP is goplsmcp lsp.
func runLSP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		cfg := &config{}
		fs := newFlagSet(cfg)
		fs.Bool("share-unsaved", false, "")
		return subcommandHelp(stdout, lspUsage+"\n\n  --share-unsaved  agents' answers on this workspace see the editor's unsaved text (off by default)", fs)
	}
	cfg := &config{}
	fs := newFlagSet(cfg)
	shareUnsaved := fs.Bool("share-unsaved", false, "agents' answers see the editor's unsaved text")
	if err := fs.Parse(splitLSPArgs(args)); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return usageError("goplsmcp lsp: unexpected argument %q", shortArg(fs.Arg(0)))
	}
	if err := cfg.check(); err != nil {
		return err
	}
	if !shareSupported {
		return usageError("goplsmcp lsp needs the shared daemon, which this system does not have; configure the editor to run gopls itself")
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
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: cfg.logLevel})).With("component", "lsp")
	arg := ""
	if *shareUnsaved {
		arg = lspShareUnsaved
	}
	fixedRoot := cfg.root
	var (
		mu  sync.Mutex
		wss = map[string]*workspace{}
	)
	// daemon connects to the daemon of the editor's root (starting it if
	// need be) and greets handler.
	daemon := func(ctx context.Context, root, handler string) (net.Conn, error) {
		if fixedRoot != "" || root == "" {
			root = fixedRoot
		}
		mu.Lock()
		ws := wss[root]
		mu.Unlock()
		if ws == nil {
			c := *cfg
			c.root = root
			var err error
			if ws, err = newWorkspace(&c); err != nil {
				return nil, err
			}
			mu.Lock()
			wss[root] = ws
			mu.Unlock()
		}
		conn, err := connectDaemon(ctx, ws, log)
		if err != nil {
			return nil, err
		}
		if _, err := io.WriteString(conn, mcp.RawHello(handler, arg)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("greeting the daemon: %w", err)
		}
		log.Info("serving the editor through the shared daemon", "root", ws.root, "socket", ws.socket(), "share_unsaved", *shareUnsaved, "handler", handler)
		return conn, nil
	}
	dial := func(ctx context.Context, root string) (io.ReadWriteCloser, error) {
		return daemon(ctx, root, lspHandler)
	}
	return lspclient.RelayEditor(ctx, stdin, stdout, lspclient.RelayOptions{Dial: dial, Hand: handStdio(stdin, stdout, daemon), Logger: log})
}

// rawHandlers are the daemon's handlers for goplsmcp lsp.
func (st *stack) rawHandlers() map[string]mcp.RawHandler {
	m := map[string]mcp.RawHandler{lspHandler: st.serveEditor}
	if handOffSupported {
		m[lspHandedHandler] = st.serveHandedEditor
	}
	return m
}

// serveEditor is the daemon's raw handler for goplsmcp lsp: the editor's
// connection served by the daemon's gopls.
func (st *stack) serveEditor(ctx context.Context, conn net.Conn, r io.Reader, arg string) error {
	rwc := struct {
		io.Reader
		io.Writer
		io.Closer
	}{r, conn, conn}
	return st.serveEditorOn(ctx, rwc, arg, nil)
}

// serveEditorOn serves an editor's LSP stream rwc with the daemon's gopls;
// observe as in [lspclient.EditorOptions].
func (st *stack) serveEditorOn(ctx context.Context, rwc io.ReadWriteCloser, arg string, observe func(string, []byte)) error {
	ed := st.br.Editor(arg == lspShareUnsaved)
	defer func() {
		endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout)
		defer cancel()
		ed.End(endCtx)
	}()
	err := st.client.ServeEditor(ctx, rwc, lspclient.EditorOptions{Gate: ed, Private: ed.Private(), Observe: observe, Logger: st.log.With("component", "editor")})
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}
