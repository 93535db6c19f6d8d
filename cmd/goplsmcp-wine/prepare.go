package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// wine is the Wine found on this machine.
type wine struct {
	path, version string
}

// findWine finds wine on PATH, or, with install, installs Debian's where
// apt-get can (as root): the packages wine and wine64 without their
// recommendations (no fonts, graphics or 32-bit libraries; a console
// program needs none).
func findWine(install bool) (*wine, error) {
	var w *wine
	err := step("Wine", func() (string, error) {
		how := "found"
		path, err := exec.LookPath("wine")
		if err != nil {
			why, err := installWine(install)
			if err != nil || why != "" {
				return "", err
			}
			if path, err = exec.LookPath("wine"); err != nil {
				return "", skipped{"apt-get installed wine and wine64, but no wine is on PATH"}
			}
			how = "installed with apt-get (wine, wine64)"
		}
		// WINEDEBUG=-all quiets Debian's hint about wine32, which a 64-bit
		// program does not need.
		cmd := exec.Command(path, "--version")
		cmd.Env = append(os.Environ(), "WINEDEBUG=-all")
		out, err := cmd.Output()
		if err != nil {
			return "", skipped{fmt.Sprintf("%s --version: %v", path, err)}
		}
		w = &wine{path: path, version: strings.TrimSpace(string(out))}
		return w.version + ", " + how, nil
	})
	return w, err
}

// installWine installs Debian's wine when allowed and possible; why says
// why it did not, as a skip.
func installWine(install bool) (why string, err error) {
	_, aptErr := exec.LookPath("apt-get")
	_, debErr := os.Stat("/etc/debian_version")
	switch {
	case !install:
		return "", skipped{"wine is not installed (make test-windows installs Debian's when it runs as root on Debian)"}
	case aptErr != nil || debErr != nil:
		return "", skipped{"wine is not installed, and this is not a Debian machine with apt-get to install it"}
	case os.Getuid() != 0:
		return "", skipped{"wine is not installed, and only root may install it (apt-get install --no-install-recommends wine wine64)"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"update", "-qq"},
		{"install", "-y", "-qq", "--no-install-recommends", "wine", "wine64"},
	} {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", skipped{fmt.Sprintf("apt-get %s failed (%v): %s", strings.Join(args, " "), err, lastLines(out, 3))}
		}
	}
	return "", nil
}

// prepared is everything the session needs: the binaries of both builds,
// the Windows Go toolchain and the Wine prefix.
type prepared struct {
	wine      *wine
	module    string // the repository's root
	bin       string // its bin directory
	win       string // bin/windows
	prefix    string // the Wine prefix, bin/windows/prefix
	goroot    string // the Go in use, which built everything
	goversion string
	wineEnv   []string
}

func prepare(w *wine) (*prepared, error) {
	module, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(module, "cmd", "goplsmcp", "main.go")); err != nil {
		return nil, fmt.Errorf("run goplsmcp-wine from the repository's root: %w", err)
	}
	p := &prepared{wine: w, module: module, bin: filepath.Join(module, "bin")}
	p.win = filepath.Join(p.bin, "windows")
	p.prefix = filepath.Join(p.win, "prefix")
	for _, exe := range []string{"goplsmcp", "gopls"} {
		if _, err := os.Stat(filepath.Join(p.bin, exe)); err != nil {
			return nil, fmt.Errorf("bin/%s, to compare with, is missing: run make build first", exe)
		}
	}
	env, err := goOutput("env", "GOROOT", "GOVERSION")
	if err != nil {
		return nil, err
	}
	p.goroot, p.goversion, _ = strings.Cut(env, "\n")
	if err := os.MkdirAll(p.win, 0o755); err != nil {
		return nil, err
	}
	// A module of its own, so that the repository's ./... never takes
	// what Windows programs leave in the prefix for its packages.
	if err := os.WriteFile(filepath.Join(p.win, "go.mod"), []byte("// What make test-windows keeps; not part of the goplsmcp module.\nmodule goplsmcp-windows-cache\n"), 0o644); err != nil {
		return nil, err
	}
	p.wineEnv = p.environment()
	for _, s := range []struct {
		name string
		f    func() (string, error)
	}{
		{"Windows Go toolchain", p.toolchain},
		{"gopls.exe", p.gopls},
		{"goplsmcp.exe", p.goplsmcp},
		{"Wine prefix", p.makePrefix},
	} {
		if err := step(s.name, s.f); err != nil {
			p.stopWine()
			return nil, err
		}
	}
	return p, nil
}

// toolchain makes bin/windows/go a Windows GOROOT of the Go in use: go.exe
// and the tools go list asks for their versions (compile, asm, link:
// gopls's go list -compiled -test computes build IDs from them, though it
// builds nothing), cross-built, that Go's VERSION and go.env, and its src
// as a symbolic link, which Wine shows Windows programs as a directory
// (and which keeps the standard library's sources out of gofmt's and the
// go command's walks of the repository). Built rather than downloaded: it
// is the very Go of the Linux build, and needs nothing fetched but what
// make build already has (the golang.org/toolchain module of Windows is
// not always served where the Linux one is). It is rebuilt when the Go in
// use changes.
func (p *prepared) toolchain() (string, error) {
	dir := filepath.Join(p.win, "go")
	stamp := filepath.Join(dir, ".built-from")
	src := filepath.Join(p.goroot, "src")
	want := p.goroot + "\n" + p.goversion + "\n"
	have, err := os.ReadFile(stamp)
	link, _ := os.Readlink(filepath.Join(dir, "src"))
	if _, statErr := os.Stat(filepath.Join(dir, "src", "runtime")); err == nil && string(have) == want && link == src && statErr == nil {
		return "bin/windows/go, " + p.goversion + ", current", nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	tools := filepath.Join(dir, "pkg", "tool", "windows_amd64")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		return "", err
	}
	if err := crossBuild(filepath.Join(dir, "bin", "go.exe"), "cmd/go"); err != nil {
		return "", err
	}
	if err := crossBuild(tools+string(filepath.Separator), "cmd/compile", "cmd/asm", "cmd/link"); err != nil {
		return "", err
	}
	for _, f := range []string{"VERSION", "go.env"} {
		data, err := os.ReadFile(filepath.Join(p.goroot, f))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.Symlink(src, filepath.Join(dir, "src")); err != nil {
		return "", err
	}
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		return "", err
	}
	return "bin/windows/go, " + p.goversion + ", built", nil
}

// gopls builds the pinned gopls for Windows, unless bin/windows/gopls.exe
// is that version built by the Go in use.
func (p *prepared) gopls() (string, error) {
	exe := filepath.Join(p.win, "gopls.exe")
	pinned, err := goOutput("list", "-m", "-f", "{{.Version}}", "golang.org/x/tools/gopls")
	if err != nil {
		return "", err
	}
	if info, err := goOutput("version", "-m", exe); err == nil {
		first, _, _ := strings.Cut(info, "\n")
		if strings.HasSuffix(first, " "+p.goversion) && strings.Contains(info, "\tgolang.org/x/tools/gopls\t"+pinned+"\t") {
			return fmt.Sprintf("bin/windows/gopls.exe, %s built by %s, current", pinned, p.goversion), nil
		}
	}
	if err := crossBuild(exe+".tmp", "golang.org/x/tools/gopls"); err != nil {
		return "", err
	}
	if err := os.Rename(exe+".tmp", exe); err != nil {
		return "", err
	}
	return fmt.Sprintf("bin/windows/gopls.exe, %s, built", pinned), nil
}

// goplsmcp builds goplsmcp.exe from this tree every time, as make build
// does bin/goplsmcp (the build cache makes it quick when nothing changed).
func (p *prepared) goplsmcp() (string, error) {
	return "bin/windows/goplsmcp.exe", crossBuild(filepath.Join(p.win, "goplsmcp.exe"), "./cmd/goplsmcp")
}

// makePrefix makes the Wine prefix, bin/windows/prefix, when it is
// missing, gives it the stand-in for bcryptprimitives.dll when Wine has
// none, and empties what earlier runs left in it (Temp, fixtures).
func (p *prepared) makePrefix() (string, error) {
	var did []string
	if _, err := os.Stat(filepath.Join(p.prefix, "system.reg")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, p.wine.path, "wineboot.exe", "--init")
		cmd.Env = p.wineEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("wineboot --init: %v: %s", err, lastLines(out, 5))
		}
		did = append(did, "made")
	} else {
		did = append(did, "kept")
	}
	// Go programs load bcryptprimitives.dll from system32 at start; a Wine
	// that has it (Wine 9 and later) put it there when it made the prefix.
	dll := filepath.Join(p.prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	want := bcryptPrimitives()
	switch have, err := os.ReadFile(dll); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.WriteFile(dll, want, 0o644); err != nil {
			return "", err
		}
		did = append(did, "stand-in bcryptprimitives.dll written")
	case err != nil:
		return "", err
	case bytes.Equal(have, want):
		did = append(did, "stand-in bcryptprimitives.dll")
	default:
		did = append(did, "Wine's own bcryptprimitives.dll")
	}
	if err := p.emptyTemp(); err != nil {
		return "", err
	}
	return "bin/windows/prefix " + strings.Join(did, ", "), nil
}

// emptyTemp removes what Windows programs leave in the prefix: the go
// command's work directories (GOFLAGS=-work keeps them, see environment)
// and gopls's temporary files, which it cannot remove under Wine either,
// and the fixtures of a run that was cut short.
func (p *prepared) emptyTemp() error {
	stale, _ := filepath.Glob(filepath.Join(p.prefix, "drive_c", "users", "*", "Temp", "*"))
	runs, _ := filepath.Glob(filepath.Join(p.prefix, "drive_c", "goplsmcp-smoke-*"))
	for _, f := range append(stale, runs...) {
		if err := os.RemoveAll(f); err != nil {
			return err
		}
	}
	return nil
}

// environment is the environment of every Wine process of the run. Wine
// passes the Unix environment to Windows programs, so the Go and goplsmcp
// variables of this one (Unix paths, GOTOOLCHAIN=auto) are left out: the
// Windows programs see what a Windows user's would, plus
//   - WINEPATH: gopls.exe and go.exe found on PATH, as after an install;
//   - GOFLAGS=-work: the go command keeps its work directory instead of
//     removing it. Go's os.RemoveAll deletes with FILE_DISPOSITION_POSIX_SEMANTICS,
//     falling back to the older call only on the errors Windows gives when
//     it lacks it; Wine 8 answers STATUS_NOT_IMPLEMENTED, so every go list
//     of gopls would fail ("unlinkat ...: Invalid function"). The
//     directories land in the prefix's Temp, which each run empties;
//   - HOME inside bin/windows, where Wine links the user's folders, and
//     no display, so Wine writes nothing outside the checkout;
//   - WINEDLLOVERRIDES: no Mono or Gecko install prompts, no menu entries.
func (p *prepared) environment() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GO"), strings.HasPrefix(k, "CGO_"), strings.HasPrefix(k, "WINE"),
			k == "HOME", k == "DISPLAY", k == "WAYLAND_DISPLAY", k == "XDG_RUNTIME_DIR":
			continue
		}
		env = append(env, kv)
	}
	home := filepath.Join(p.win, "home")
	os.MkdirAll(home, 0o755)
	debug := "-all"
	if d := os.Getenv("WINEDEBUG"); d != "" {
		debug = d
	}
	return append(env,
		"HOME="+home,
		"WINEPREFIX="+p.prefix,
		"WINEDEBUG="+debug,
		"WINEDLLOVERRIDES=mscoree,mshtml=;winemenubuilder.exe=d",
		"WINEPATH="+p.winPath(p.win)+";"+p.winPath(filepath.Join(p.win, "go", "bin")),
		"GOFLAGS=-work",
	)
}

// stopWine ends every Wine process of the prefix (wineserver -k) and waits
// for the wineserver to exit.
func (p *prepared) stopWine() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	server := "wineserver"
	if s, err := exec.LookPath("wineserver"); err == nil {
		server = s
	}
	for _, arg := range []string{"-k", "-w"} {
		cmd := exec.CommandContext(ctx, server, arg)
		cmd.Env = p.wineEnv
		cmd.Run() // -k fails when no wineserver runs: nothing to stop
	}
	if left := p.wineProcesses(nil); len(left) > 0 {
		fmt.Printf("wine: still running after wineserver -k: %s\n", strings.Join(left, "; "))
	}
	if err := p.emptyTemp(); err != nil {
		fmt.Printf("wine: emptying the prefix's Temp: %v\n", err)
	}
}

// crossBuild builds Go packages for windows/amd64 into out.
func crossBuild(out string, pkgs ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-o", out}, pkgs...)...)
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v: %s", strings.Join(pkgs, " "), err, lastLines(out, 10))
	}
	return nil
}

func goOutput(args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.Bytes(), 5))
	}
	return strings.TrimSpace(string(out)), nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// winPath is how Wine spells a Unix path: drive C: is the prefix's
// drive_c, and drive Z: the Unix root.
func (p *prepared) winPath(path string) string {
	if rel, ok := strings.CutPrefix(path, filepath.Join(p.prefix, "drive_c")+"/"); ok {
		return `C:\` + strings.ReplaceAll(rel, "/", `\`)
	}
	return "Z:" + strings.ReplaceAll(path, "/", `\`)
}

// winURI is the file:// URI of a Unix path as Windows programs under
// Wine spell it: file:///C:/dir/file.
func (p *prepared) winURI(path string) string {
	return "file:///" + strings.ReplaceAll(p.winPath(path), `\`, "/")
}

// lastLines is the end of a command's output, for an error message.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
