// Command driver is a small go/packages driver (GOPACKAGESDRIVER), as
// Bazel users run one: it answers the query on its command line through
// go/packages with the go command (GOPACKAGESDRIVER=off), so that the
// workspace-shape test can check that goplsmcp passes GOPACKAGESDRIVER
// through to gopls and answers with it. Each run appends its patterns to
// the file $DRIVER_LOG, which shows the test that it was asked.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
}

func run() error {
	var req packages.DriverRequest
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	if log := os.Getenv("DRIVER_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		fmt.Fprintln(f, strings.Join(os.Args[1:], " "))
		f.Close()
	}
	// go/packages type-checks what the driver describes; the driver only
	// describes.
	mode := req.Mode &^ (packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo)
	cfg := &packages.Config{
		Mode:       mode,
		Env:        append(append(os.Environ(), req.Env...), "GOPACKAGESDRIVER=off"),
		BuildFlags: req.BuildFlags,
		Tests:      req.Tests,
		Overlay:    req.Overlay,
	}
	pkgs, err := packages.Load(cfg, os.Args[1:]...)
	if err != nil {
		return err
	}
	resp := packages.DriverResponse{Compiler: "gc", Arch: runtime.GOARCH, GoVersion: goMinor()}
	for _, p := range pkgs {
		resp.Roots = append(resp.Roots, p.ID)
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) { resp.Packages = append(resp.Packages, p) })
	return json.NewEncoder(os.Stdout).Encode(resp)
}

// goMinor is the minor version of the Go the driver was built with
// (26 for go1.26.8).
func goMinor() int {
	v := strings.TrimPrefix(runtime.Version(), "go1.")
	v, _, _ = strings.Cut(v, ".")
	n, _ := strconv.Atoi(v)
	return n
}
