package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// Bounds on waits, far above what a busy machine needs: Wine starts a
// process in seconds, and the Windows gopls loads the fixture under it in
// tens of seconds.
const (
	callBound = 5 * time.Minute // one call, the first one's load included
	exitBound = 2 * time.Minute // a server's exit once its stdin closed
	goneBound = time.Minute     // its processes' end after its exit
)

// A server is one goplsmcp of the session, the Linux build's or the
// Windows build's under Wine, on its own copy of testdata/example.
type server struct {
	name string
	dir  string // on this machine: the copy's parent, with example/ and outside/
	root string // on this machine: dir/example
	// system is a file of the system, outside the root: the samples'
	// /etc/passwd, and on Windows the prefix's C:\windows\win.ini.
	system string
	// sysdir is a directory of the system, outside the root: the
	// samples' /etc, and on Windows the prefix's C:\windows.
	sysdir string
	spell  func(path string) string // a path on this machine as the server spells it
	uri    func(path string) string // a path on this machine as a file:// URI of the server's
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	client *mcp.Client
	stderr bytes.Buffer // guarded by mu
	mu     sync.Mutex
	// names are how the server spells the places that differ between the
	// builds, each with the word the comparison puts in its place.
	names []spelling
}

type spelling struct {
	re   *regexp.Regexp
	word string
}

// An answer is one call's result as the comparison sees it.
type answer struct {
	server  *server
	text    string
	isError bool
	took    time.Duration
}

// secret is the content of a Go file beside the root, which no answer may
// show.
const secret = "package outside\n\n// Secret must never reach an answer.\nconst Secret = \"do-not-show\"\n"

func (p *prepared) smoke(verbose bool) error {
	fixture := filepath.Join(p.module, "testdata", "example")
	vulndb := filepath.Join(p.module, "testdata", "vulncheck", "vulndb")
	var tools []string
	for _, spec := range bridge.Catalogue() {
		tools = append(tools, spec.Name)
	}
	common := []string{"--allow-write", "--tools", strings.Join(tools, ",")}

	linuxDir, err := os.MkdirTemp("", "goplsmcp-wine-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(linuxDir)
	// The Windows copy is on drive C:, the prefix's drive_c.
	winDir, err := os.MkdirTemp(filepath.Join(p.prefix, "drive_c"), "goplsmcp-smoke-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(winDir)

	linux := &server{name: "linux", dir: linuxDir, system: "/etc/passwd", sysdir: "/etc",
		spell: func(path string) string { return path },
		uri:   func(path string) string { return "file://" + path },
	}
	win := &server{name: "windows", dir: winDir, spell: p.winPath,
		system: filepath.Join(p.prefix, "drive_c", "windows", "win.ini"),
		sysdir: filepath.Join(p.prefix, "drive_c", "windows"),
		uri:    p.winURI,
	}
	servers := []*server{linux, win}
	for _, s := range servers {
		s.root = filepath.Join(s.dir, "example")
		if err := copyTree(fixture, s.root); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(s.dir, "outside"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(s.dir, "outside", "secret.go"), []byte(secret), 0o644); err != nil {
			return err
		}
		s.names = []spelling{
			s.place(s.root, "$ROOT"),
			s.place(s.dir, "$TMP"),
			s.place(s.system, "$SYSTEM"),
			s.place(s.sysdir, "$SYSDIR"),
		}
	}
	linux.names = append(linux.names, linux.place(p.goroot, "$GOROOT"))
	win.names = append(win.names, win.place(filepath.Join(p.win, "go"), "$GOROOT"))

	err = step("start both servers", func() (string, error) {
		linux.cmd = exec.Command(filepath.Join(p.bin, "goplsmcp"), append([]string{"--root", linux.root,
			"--gopls", filepath.Join(p.bin, "gopls"), "--share", "off", "--env", "GOVULNDB=" + linux.uri(vulndb)}, common...)...)
		linux.cmd.Env = os.Environ()
		win.cmd = p.winCommand(append([]string{"--root", win.spell(win.root), "--env", "GOVULNDB=" + win.uri(vulndb)}, common...)...)
		detail := make([]string, len(servers))
		err := both(servers, func(s *server) error {
			start := time.Now()
			if err := s.start(); err != nil {
				return err
			}
			detail[slices.Index(servers, s)] = fmt.Sprintf("%s initialized in %s", s.name, since(start))
			return nil
		})
		return strings.Join(detail, ", "), err
	})
	defer func() {
		for _, s := range servers {
			if s.cmd != nil && s.cmd.Process != nil && s.cmd.ProcessState == nil {
				s.cmd.Process.Kill()
				s.cmd.Wait()
			}
		}
	}()
	if err != nil {
		return err
	}

	t := &transcript{verbose: verbose}
	ctx := context.Background()
	err = step("tools/list", func() (string, error) {
		var lists [2][]string
		err := both(servers, func(s *server) error {
			var list struct{ Tools []struct{ Name string } }
			if err := s.client.Call(ctx, "tools/list", map[string]any{}, &list); err != nil {
				return err
			}
			for _, tool := range list.Tools {
				lists[slices.Index(servers, s)] = append(lists[slices.Index(servers, s)], tool.Name)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		if d := cmp.Diff(tools, lists[1]); d != "" {
			return "", fmt.Errorf("the Windows build lists other tools than the catalogue (-catalogue +windows):\n%s", d)
		}
		if d := cmp.Diff(lists[0], lists[1]); d != "" {
			return "", fmt.Errorf("the builds list different tools (-linux +windows):\n%s", d)
		}
		return fmt.Sprintf("%d tools on both", len(tools)), nil
	})
	if err != nil {
		return err
	}

	err = step("every tool's good and bad sample call", func() (string, error) {
		for _, spec := range bridge.Catalogue() {
			t.call(servers, spec.Name+" good", spec.Name, func(s *server) string { return s.sample(spec.Good.Args) }, func(a answer) error {
				if a.isError {
					return fmt.Errorf("tool error %q; the good sample must answer", a.text)
				}
				if !strings.Contains(a.text, spec.Good.Want) {
					return fmt.Errorf("the answer lacks %q", spec.Good.Want)
				}
				return nil
			})
			t.call(servers, spec.Name+" bad", spec.Name, func(s *server) string { return s.sample(spec.Bad.Args) }, func(a answer) error {
				want := strings.ReplaceAll(spec.Bad.Want, "file:///etc/passwd", regexp.QuoteMeta(a.server.uri(a.server.system)))
				want = strings.ReplaceAll(want, `"/etc"`, regexp.QuoteMeta(strconv.Quote(a.server.spell(a.server.sysdir))))
				if !a.isError || !regexp.MustCompile(want).MatchString(a.text) || strings.Contains(a.text, "\n") {
					return fmt.Errorf("want a one-line tool error matching %s", spec.Bad.Want)
				}
				return nil
			})
		}
		return t.summary(), t.err()
	})
	if err != nil {
		return err
	}

	err = step("changes on disk", func() (string, error) {
		t.reset()
		for _, s := range servers {
			// A new file, and broken.go with another error, CRLF line ends
			// and the error's column after a two-byte character.
			added := "package shapes\n\n// AddedOnDisk is written while the session runs.\nfunc AddedOnDisk() int { return 42 }\n"
			if err := os.WriteFile(filepath.Join(s.root, "shapes", "added.go"), []byte(added), 0o644); err != nil {
				return "", err
			}
			changed := strings.Join([]string{
				"// Package broken holds a deliberate type error, to show diagnostics.",
				"package broken", "",
				`import "example.com/shapes/shapes"`, "",
				"// Unit is a 1×1 square.",
				`func Unit() shapes.Rect { var x = "×"; return shapes.Rect{W: x, H: 1} }`, "",
			}, "\r\n")
			if err := os.WriteFile(filepath.Join(s.root, "broken", "broken.go"), []byte(changed), 0o644); err != nil {
				return "", err
			}
		}
		t.call(servers, "a new file is seen", "go_search", func(*server) string { return `{"query": "AddedOnDisk"}` }, wants("func AddedOnDisk"))
		t.call(servers, "a changed CRLF file is seen", "go_diagnostics", func(*server) string { return `{"files": ["broken/broken.go"]}` }, wants("cannot use x"))
		t.call(servers, "its symbols, in byte columns", "go_symbols", func(*server) string { return `{"file": "broken/broken.go", "detailed": true}` }, wants("func Unit() shapes.Rect"))
		return t.summary(), t.err()
	})
	if err != nil {
		return err
	}

	err = step("an applied rename", func() (string, error) {
		t.reset()
		t.call(servers, "rename TotalArea to SumAreas, apply", "go_rename_symbol", func(*server) string {
			return `{"file": "shapes/shapes.go", "symbol": "TotalArea", "new_name": "SumAreas", "apply": true}`
		}, wants("+func SumAreas("))
		var files [2]map[string]string
		for i, s := range servers {
			files[i] = map[string]string{}
			err := filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(path)
				rel, _ := filepath.Rel(s.root, path)
				files[i][filepath.ToSlash(rel)] = string(data)
				return err
			})
			if err != nil {
				return "", err
			}
			if !strings.Contains(files[i]["shapes/shapes.go"], "func SumAreas(") || !strings.Contains(files[i]["main.go"]+files[i]["report/report.go"], "SumAreas(") {
				t.fail("%s: after the apply, shapes.go or its callers lack SumAreas", s.name)
			}
			for name, text := range files[i] {
				if strings.Contains(text, "TotalArea") {
					t.fail("%s: after the apply, %s still says TotalArea", s.name, name)
				}
			}
		}
		if d := cmp.Diff(files[0], files[1]); d != "" {
			t.fail("the files after the apply differ (-linux +windows):\n%s", d)
		}
		t.call(servers, "the renamed function, found", "go_definition", func(*server) string {
			return `{"file": "report/report.go", "symbol": "shapes.SumAreas"}`
		}, wants("func SumAreas("))
		return t.summary() + ", the files byte for byte the same", t.err()
	})
	if err != nil {
		return err
	}

	err = step("paths outside the root", func() (string, error) {
		t.reset()
		refused := func(a answer) error {
			if !a.isError || !strings.Contains(a.text, "is outside the workspace root") || strings.Contains(a.text, "do-not-show") {
				return fmt.Errorf("want a tool error saying the file is outside the workspace root")
			}
			return nil
		}
		t.call(servers, "an absolute path", "go_symbols", func(s *server) string {
			return jsonArgs("file", s.spell(filepath.Join(s.dir, "outside", "secret.go")))
		}, refused)
		t.call(servers, "a relative path up and out", "go_symbols", func(s *server) string {
			return jsonArgs("file", "../outside/secret.go")
		}, refused)
		t.only(win, `the same with \`, "go_symbols", jsonArgs("file", `..\outside\secret.go`), refused)
		t.call(servers, "a file:// URI", "go_organize_imports", func(s *server) string {
			return jsonArgs("uri", s.uri(filepath.Join(s.dir, "outside", "secret.go")))
		}, func(a answer) error {
			if !a.isError || !strings.Contains(a.text, "is outside the workspace root") {
				return fmt.Errorf("want a tool error saying the uri is outside the workspace root")
			}
			return nil
		})
		// Windows compares paths without regard to case: the root spelled
		// in capitals is the root.
		t.call(servers, "the root in another case", "go_symbols", func(s *server) string {
			path := filepath.Join(s.root, "main.go")
			if s == win {
				return jsonArgs("file", strings.ToUpper(s.spell(path)))
			}
			return jsonArgs("file", path)
		}, wants("func main()"))
		return t.summary(), t.err()
	})
	if err != nil {
		return err
	}

	err = step("finding gopls.exe", func() (string, error) { return p.findGopls(win.root) })
	if err != nil {
		return err
	}

	err = step("stdin closed: nothing left running", func() (string, error) {
		detail := make([]string, len(servers))
		err := both(servers, func(s *server) error {
			start := time.Now()
			if err := s.stop(); err != nil {
				return err
			}
			if s == win {
				gone := time.Now()
				if err := p.noneLeft(); err != nil {
					return err
				}
				detail[1] = fmt.Sprintf("windows exited in %s, no goplsmcp.exe, gopls.exe or go.exe %s later", gone.Sub(start).Round(100*time.Millisecond), since(gone))
			} else {
				detail[0] = fmt.Sprintf("linux exited in %s", since(start))
			}
			if verbose {
				s.mu.Lock()
				fmt.Printf("wine: %s's stderr:\n%s", s.name, indent(s.stderr.String()))
				s.mu.Unlock()
			}
			return nil
		})
		return strings.Join(detail, "; "), err
	})
	if err != nil {
		return err
	}

	// goplsmcp.exe killed outright: its job object, whose last handle
	// closes with it, ends gopls.exe.
	return step("goplsmcp.exe killed: nothing left running", func() (string, error) {
		killed := &server{name: "windows", root: win.root, cmd: p.winCommand("--root", win.spell(win.root))}
		start := time.Now()
		if err := killed.start(); err != nil {
			return "", err
		}
		// goplsmcp.exe starts gopls.exe at launch; wait until it runs.
		if !poll(callBound, func() bool { return len(p.wineProcesses([]string{"gopls.exe"})) > 0 }) {
			killed.cmd.Process.Kill()
			killed.cmd.Wait()
			return "", fmt.Errorf("no gopls.exe ran %s after goplsmcp.exe started%s", callBound, killed.stderrTail())
		}
		if err := killed.cmd.Process.Kill(); err != nil {
			return "", err
		}
		killed.cmd.Wait()
		gone := time.Now()
		if err := p.noneLeft(); err != nil {
			return "", err
		}
		return fmt.Sprintf("killed %s after start with gopls.exe running, none left %s later", gone.Sub(start).Round(100*time.Millisecond), since(gone)), nil
	})
}

// findGopls starts goplsmcp.exe where it can find gopls.exe only by
// --gopls Z:\...\gopls.exe, and only beside itself (the release
// archive's layout), with none on PATH (WINEPATH names go.exe's directory
// alone): each must answer a call on root. Then, with neither, it must
// refuse to start and say where it looked: the check can fail.
func (p *prepared) findGopls(root string) (string, error) {
	alone := filepath.Join(p.win, "alone")
	if err := os.MkdirAll(alone, 0o755); err != nil {
		return "", err
	}
	lone := filepath.Join(alone, "goplsmcp.exe")
	os.Remove(lone)
	if err := copyFile(filepath.Join(p.win, "goplsmcp.exe"), lone); err != nil {
		return "", err
	}
	env := slices.Clone(p.wineEnv)
	for i, kv := range env {
		if strings.HasPrefix(kv, "WINEPATH=") {
			env[i] = "WINEPATH=" + p.winPath(filepath.Join(p.win, "go", "bin"))
		}
	}
	command := func(exe string, args ...string) *exec.Cmd {
		cmd := exec.Command(p.wine.path, append([]string{exe, "--root", p.winPath(root)}, args...)...)
		cmd.Env = env
		return cmd
	}
	ways := []*server{
		{name: "--gopls " + p.winPath(filepath.Join(p.win, "gopls.exe")), root: root,
			cmd: command(lone, "--gopls", p.winPath(filepath.Join(p.win, "gopls.exe")))},
		{name: "gopls.exe beside goplsmcp.exe", root: root, cmd: command(filepath.Join(p.win, "goplsmcp.exe"))},
	}
	err := both(ways, func(s *server) error {
		if err := s.start(); err != nil {
			return err
		}
		a, err := s.call("go_symbols", `{"file": "main.go"}`)
		if err == nil && (a.isError || !strings.Contains(a.text, "func main()")) {
			err = fmt.Errorf("%s: go_symbols main.go answered %q, want its symbols", s.name, a.text)
		}
		if stopErr := s.stop(); err == nil {
			err = stopErr
		}
		if err == nil {
			fmt.Printf("wine:   %-44s found, answered (%s)\n", s.name, a.took.Round(10*time.Millisecond))
		}
		return err
	})
	if err != nil {
		return "", err
	}
	// Neither: goplsmcp.exe exits at once with the places it looked.
	cmd := command(lone)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "gopls not found") || !strings.Contains(strings.ToLower(string(out)), strings.ToLower(p.winPath(filepath.Join(alone, "gopls.exe")))) {
		return "", fmt.Errorf("goplsmcp.exe with no gopls.exe beside it, on PATH or named: exit %v, want a failure naming %s; it printed:\n%s", err, p.winPath(filepath.Join(alone, "gopls.exe")), indent(string(out)))
	}
	fmt.Printf("wine:   %-44s refused: %s\n", "neither", clip(strings.TrimSpace(lastLines(out, 1))))
	return "by --gopls and beside goplsmcp.exe, none on PATH; refused without either", nil
}

// winCommand is goplsmcp.exe under Wine with args: gopls.exe and go.exe
// are found on PATH (WINEPATH), and there is no shared daemon (--share
// auto is off on Windows).
func (p *prepared) winCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(p.wine.path, append([]string{filepath.Join(p.win, "goplsmcp.exe")}, args...)...)
	cmd.Env = p.wineEnv
	return cmd
}

// place is how the server spells path, in text and in URIs, replaced by
// word for the comparison; Windows spellings match in any case.
func (s *server) place(path, word string) spelling {
	spelled := []string{regexp.QuoteMeta(s.uri(path)), regexp.QuoteMeta(s.spell(path))}
	if s.sep() == '\\' {
		native := s.spell(path)
		// Quoted in a message (render.Quote), then as is, then with
		// slashes: the first alternative that matches wins.
		spelled = []string{regexp.QuoteMeta(s.uri(path)), regexp.QuoteMeta(strings.ReplaceAll(native, `\`, `\\`)),
			regexp.QuoteMeta(native), regexp.QuoteMeta(strings.ReplaceAll(native, `\`, "/"))}
		return spelling{regexp.MustCompile(`(?i)` + strings.Join(spelled, "|")), word}
	}
	return spelling{regexp.MustCompile(strings.Join(spelled, "|")), word}
}

func (s *server) sep() byte {
	if strings.HasPrefix(s.spell("/"), "Z:") {
		return '\\'
	}
	return '/'
}

// normalize is an answer's text with the places that differ between the
// builds replaced by words, and paths under them spelled with "/".
func (s *server) normalize(text string) string {
	for _, n := range s.names {
		text = n.re.ReplaceAllLiteralString(text, n.word)
	}
	return underPlace.ReplaceAllStringFunc(text, func(path string) string {
		return strings.ReplaceAll(strings.ReplaceAll(path, `\\`, "/"), `\`, "/")
	})
}

var underPlace = regexp.MustCompile(`\$(ROOT|TMP|GOROOT|SYSTEM|SYSDIR)[^\s"'():,\[\]]*`)

// sample is a catalogue sample's arguments for this server: $ROOT is the
// root as it spells it, in a file:// URI as a URI, file:///etc/passwd
// its system file's URI and "/etc" its system directory.
func (s *server) sample(args string) string {
	args = strings.ReplaceAll(args, "file:///etc/passwd", s.uri(s.system))
	args = strings.ReplaceAll(args, `"/etc"`, jsonString(s.spell(s.sysdir)))
	args = strings.ReplaceAll(args, "file://$ROOT", s.uri(s.root))
	root, _ := json.Marshal(s.spell(s.root))
	return strings.ReplaceAll(args, "$ROOT", strings.Trim(string(root), `"`))
}

func (s *server) start() error {
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	s.cmd.Stderr = writerFunc(func(b []byte) (int, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.stderr.Write(b)
	})
	s.cmd.Dir = s.root
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting the %s build: %w", s.name, err)
	}
	s.client = mcp.NewClient(stdout, s.stdin)
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	if _, err := s.client.Initialize(ctx, "2025-11-25"); err != nil {
		return fmt.Errorf("%s: initialize: %w%s", s.name, err, s.stderrTail())
	}
	return nil
}

func (s *server) call(tool, args string) (answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	start := time.Now()
	res, err := s.client.CallTool(ctx, tool, json.RawMessage(args))
	if err != nil {
		return answer{}, fmt.Errorf("%s: %s %s: %w%s", s.name, tool, args, err, s.stderrTail())
	}
	return answer{server: s, text: res.Text(), isError: res.IsError, took: time.Since(start)}, nil
}

// stop closes the server's stdin and waits for it to exit.
func (s *server) stop() error {
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: after stdin closed: %w%s", s.name, err, s.stderrTail())
		}
		return nil
	case <-time.After(exitBound):
		return fmt.Errorf("%s: still running %s after its stdin closed%s", s.name, exitBound, s.stderrTail())
	}
}

func (s *server) stderrTail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stderr.Len() == 0 {
		return ""
	}
	return "; its stderr ends: " + lastLines(s.stderr.Bytes(), 5)
}

// A transcript prints each call of a step on both servers and collects
// what failed.
type transcript struct {
	verbose bool
	calls   int
	fails   []string
}

func (t *transcript) reset() { t.calls, t.fails = 0, nil }

func (t *transcript) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t.fails = append(t.fails, msg)
	fmt.Printf("wine:   FAIL %s\n", msg)
}

func (t *transcript) summary() string {
	return fmt.Sprintf("%d calls on both, %d failed", t.calls, len(t.fails))
}

func (t *transcript) err() error {
	if len(t.fails) == 0 {
		return nil
	}
	return fmt.Errorf("%d failed: %s", len(t.fails), strings.Join(t.fails, "; "))
}

// call makes one call on both servers at once, checks each answer, and
// requires the Windows build's to be the Linux build's but for how places
// are spelled.
func (t *transcript) call(servers []*server, label, tool string, args func(*server) string, check func(answer) error) {
	t.calls++
	var answers [2]answer
	err := both(servers, func(s *server) error {
		a, err := s.call(tool, args(s))
		answers[slices.Index(servers, s)] = a
		return err
	})
	if err != nil {
		t.fail("%s: %v", label, err)
		return
	}
	failed := false
	for i, s := range servers {
		if err := check(answers[i]); err != nil {
			t.fail("%s, %s: %s %s: %v; it answered:\n%s", label, s.name, tool, args(s), err, indent(answers[i].text))
			failed = true
		}
	}
	linux, win := servers[0].normalize(answers[0].text), servers[1].normalize(answers[1].text)
	// The standard library differs by GOOS, so what scope "all" would add
	// to a search is counted over other files on each system.
	linux, win = stdlibCount.ReplaceAllString(linux, "adds N from"), stdlibCount.ReplaceAllString(win, "adds N from")
	if d := cmp.Diff(linux, win); d != "" || answers[0].isError != answers[1].isError {
		t.fail("%s: %s answers differ (-linux +windows), tool error %v and %v:\n%s", label, tool, answers[0].isError, answers[1].isError, d)
		failed = true
	}
	if failed {
		return
	}
	first, _, _ := strings.Cut(answers[1].text, "\n")
	fmt.Printf("wine:   %-44s same (windows %s, linux %s)  %s\n", label, answers[1].took.Round(10*time.Millisecond), answers[0].took.Round(10*time.Millisecond), clip(first))
	if t.verbose {
		fmt.Print(indent(answers[1].text))
	}
}

// only makes a call on one server, with no counterpart on the other.
func (t *transcript) only(s *server, label, tool, args string, check func(answer) error) {
	t.calls++
	a, err := s.call(tool, args)
	if err == nil {
		err = check(a)
	}
	if err != nil {
		t.fail("%s, %s: %s %s: %v; it answered:\n%s", label, s.name, tool, args, err, indent(a.text))
		return
	}
	first, _, _ := strings.Cut(a.text, "\n")
	fmt.Printf("wine:   %-44s %s only (%s)  %s\n", label, s.name, a.took.Round(10*time.Millisecond), clip(first))
}

func clip(line string) string {
	if len(line) > 72 {
		return line[:72] + "…"
	}
	return line
}

// wants checks that a call answers, with text in its answer.
func wants(text string) func(answer) error {
	return func(a answer) error {
		if a.isError || !strings.Contains(a.text, text) {
			return fmt.Errorf("want an answer with %q", text)
		}
		return nil
	}
}

// both runs f for each server at once and returns the first error.
func both(servers []*server, f func(*server) error) error {
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { errs[i] = f(s) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func jsonString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

func jsonArgs(key, value string) string {
	data, _ := json.Marshal(map[string]string{key: value})
	return string(data)
}

func indent(text string) string {
	if text == "" {
		return ""
	}
	return "\t" + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n\t") + "\n"
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		os.Remove(to)
		return copyFile(path, to)
	})
}

// stdlibCount matches go_search's count of what scope "all" adds.
var stdlibCount = regexp.MustCompile(`adds [0-9]+ from`)
