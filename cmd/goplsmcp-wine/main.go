// Command goplsmcp-wine runs the Windows build of goplsmcp under Wine, on
// Linux, and compares its answers with the Linux build's: make
// test-windows, part of make test.
//
// It prepares everything under bin/windows and keeps it for the next run
// while it is current: goplsmcp.exe and the pinned gopls.exe, cross-built;
// a Windows Go toolchain (go.exe and the tools go list needs, cross-built
// by the Go in use, with that Go's standard library source); and a Wine
// prefix. With -install, on a Debian machine where it runs as root (CI's),
// it installs Debian's wine when it is missing; where Wine is not there
// and cannot be installed, it says it skipped and why, and succeeds.
//
// The session, on a copy of testdata/example for each build: every tool's
// good and bad sample call from bridge's catalogue, a file added and a file
// changed on disk (with CRLF line ends) seen by the next call, a rename
// applied with --allow-write and the files checked after, paths outside
// the root refused, gopls.exe found by --gopls Z:\...\gopls.exe and
// beside goplsmcp.exe with none on PATH (and a start refused with
// neither), and, once stdin closes, no goplsmcp, gopls or go process of
// the run left. Every answer must be the Linux build's but for
// how the root and GOROOT are spelled. docs/development.md says what Wine
// needs and what it cannot show.
//
// Usage, from the repository's root after make build:
//
//	go run ./cmd/goplsmcp-wine [-install] [-prepare] [-v]
//
// -prepare prepares and stops there, so that make test can have the
// toolchain built and Wine installed while other steps run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

func main() {
	install := flag.Bool("install", false, "install Debian's wine with apt-get when it is missing (as root on Debian)")
	verbose := flag.Bool("v", false, "print every answer, and the servers' stderr")
	only := flag.Bool("prepare", false, "prepare bin/windows (and with -install, Wine), then stop: no session")
	flag.Parse()
	start := time.Now()
	err := run(*install, *only, *verbose)
	var skip skipped
	switch {
	case errors.As(err, &skip):
		fmt.Printf("wine: skipped: %s\n", skip.why)
	case err != nil:
		fmt.Fprintf(os.Stderr, "wine: FAIL: %v\n", err)
		os.Exit(1)
	default:
		fmt.Printf("wine: ok (%s)\n", since(start))
	}
}

// skipped is the reason the smoke cannot run on this machine: not a
// failure.
type skipped struct{ why string }

func (s skipped) Error() string { return "skipped: " + s.why }

func run(install, prepareOnly, verbose bool) error {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return skipped{fmt.Sprintf("Wine runs the windows/amd64 build on linux/amd64, and this is %s/%s", runtime.GOOS, runtime.GOARCH)}
	}
	w, err := findWine(install)
	if err != nil {
		return err
	}
	p, err := prepare(w)
	if err != nil {
		return err
	}
	if prepareOnly {
		p.stopWine()
		return nil
	}
	// Whatever happens, no Wine process of the run outlives it: not when
	// it ends, nor when it is interrupted.
	defer p.stopWine()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "wine: interrupted; stopping Wine")
		p.stopWine()
		os.Exit(1)
	}()
	return p.smoke(verbose)
}

// step runs one step of the smoke and prints its name, what it found and
// how long it took.
func step(name string, f func() (string, error)) error {
	start := time.Now()
	detail, err := f()
	var skip skipped
	if errors.As(err, &skip) {
		return err
	}
	if err != nil {
		fmt.Printf("wine: %s: failed (%s)\n", name, since(start))
		return fmt.Errorf("%s: %w", name, err)
	}
	if detail != "" {
		detail = ": " + detail
	}
	fmt.Printf("wine: %s%s (%s)\n", name, detail, since(start))
	return nil
}

func since(t time.Time) string {
	return time.Since(t).Round(100 * time.Millisecond).String()
}
