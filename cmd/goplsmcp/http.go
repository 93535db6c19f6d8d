package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// minTokenChars bounds a token from --token-file from below: a bearer
// token is the only thing between the network and the code.
const minTokenChars = 16

// checkHTTP checks the HTTP flags together.
func (cfg *config) checkHTTP() error {
	if cfg.http == "" {
		switch {
		case cfg.tokenFile != "":
			return usageError("--token-file goes with --http")
		case len(cfg.allowHosts) > 0:
			return usageError("--allow-host goes with --http")
		}
		return nil
	}
	host, port, err := net.SplitHostPort(cfg.http)
	if err != nil || port == "" {
		return usageError("--http %q: want HOST:PORT, e.g. 127.0.0.1:8765", cfg.http)
	}
	if !mcp.IsLoopback(cfg.http) && cfg.tokenFile == "" {
		if host == "" {
			host = "every interface"
		}
		return usageError("--http %s listens on %s, not only loopback: pass --token-file with the token clients will send", cfg.http, host)
	}
	return nil
}

// httpServing is the HTTP transport about to serve: its listener, token
// and the host names clients may use.
type httpServing struct {
	ln    net.Listener
	token string
	hosts []string
	url   string
}

// listenHTTP settles the token and takes the port.
func listenHTTP(cfg *config, stderr io.Writer) (*httpServing, error) {
	token, generated, err := readToken(cfg.tokenFile)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.http)
	if err != nil {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("--http %s: %v", cfg.http, err)}
	}
	web := &httpServing{ln: ln, token: token, url: "http://" + urlHost(cfg.http, ln.Addr()) + mcp.HTTPPath}
	// Clients may name the server by the name given to --http, or, off
	// loopback, by this machine's (or container's) host name.
	if host, _, _ := net.SplitHostPort(cfg.http); host != "" && net.ParseIP(host) == nil {
		web.hosts = append(web.hosts, host)
	}
	web.hosts = append(web.hosts, cfg.allowHosts...)
	if !mcp.IsLoopback(cfg.http) {
		if name, err := os.Hostname(); err == nil && name != "" {
			web.hosts = append(web.hosts, name)
		}
	}
	if generated {
		fmt.Fprintf(stderr, "goplsmcp: serving MCP at %s; clients must send the header\n  Authorization: Bearer %s\n", web.url, token)
	}
	return web, nil
}

// readToken reads the token from file, or makes a random one.
func readToken(file string) (token string, generated bool, err error) {
	if file == "" {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", false, fmt.Errorf("making a token: %w", err)
		}
		return hex.EncodeToString(b[:]), true, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false, usageError("--token-file: %v", err)
	}
	token = strings.TrimSpace(string(data))
	switch {
	case len(token) < minTokenChars:
		return "", false, usageError("--token-file %s: the token must have at least %d characters", file, minTokenChars)
	case strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r > '~' }):
		return "", false, usageError("--token-file %s: the token must be one line of visible ASCII characters", file)
	}
	return token, false, nil
}

// urlHost is the host:port a client uses to reach addr as it was bound
// (the real port when :0 was asked for; localhost for every interface).
func urlHost(asked string, bound net.Addr) string {
	host, _, _ := net.SplitHostPort(asked)
	_, port, _ := net.SplitHostPort(bound.String())
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// serve serves MCP over HTTP until ctx is done.
func (web *httpServing) serve(ctx context.Context, srv *mcp.Server, log *slog.Logger, root string, client *lspclient.Client) error {
	attrs := []any{"url", web.url, "listen", web.ln.Addr().String(), "root", root, "gopls", client.Version(), "pid", client.PID(), "goplsmcp_pid", os.Getpid()}
	if mcp.IsLoopback(web.ln.Addr().String()) {
		log.Info("serving MCP over HTTP", attrs...)
	} else {
		log.Warn("serving MCP over HTTP on a NON-LOOPBACK address: anyone who can reach it and holds the token can read the Go code under the root", attrs...)
	}
	return srv.ServeStreamableHTTP(ctx, web.ln, &mcp.HTTPOptions{Token: web.token, Hosts: web.hosts, Ready: func() bool { return ready(client) }})
}

// ready says whether calls can be answered now: gopls runs and has loaded
// the workspace (a load that failed counts: go_workspace says why). While
// gopls is being started again, or is in a crash loop, it is not.
func ready(client *lspclient.Client) bool {
	return client.Health().State == "running" && client.Loaded()
}
