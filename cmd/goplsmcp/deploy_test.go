//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/goplsmcp/goplsmcp/bridge"
)

// fixtureRoot copies testdata/NAME to a temporary directory.
func fixtureRoot(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("../../testdata", name))); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// initialized starts p's MCP session.
func initialized(t *testing.T, p *proc) {
	t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"deploy","version":"0"}}}`)
	if m := p.recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestBuildContext starts goplsmcp on a module whose use.go calls a
// function declared only under the integration build tag. Without the
// tag, the call is undefined; with it, given as --build-flags, as
// buildFlags in --settings (inline or @FILE), or as GOFLAGS in --env, it
// resolves. go_workspace and goplsmcp://limits count what was given, and
// never show it.
func TestBuildContext(t *testing.T) {
	gopls := goplsPath(t)
	settingsFile := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settingsFile, []byte(`{"buildFlags": ["-tags=integration"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		definition = `integration.go:6:6: func Integrated() string { return "integration" }`
		undefined  = "use.go: 1 error\n7:9: undefined: Integrated"
	)
	tests := []struct {
		name    string
		flags   []string
		tagged  bool
		counts  map[string]any // go_workspace's buildContext
		secrets []string       // values that must not appear in answers
	}{
		{"no tag", nil, false, nil, nil},
		{"--build-flags", []string{"--build-flags=-tags=integration"}, true,
			map[string]any{"buildFlags": 1.0, "env": 0.0, "settings": 0.0}, []string{"integration"}},
		{"--settings", []string{"--settings", `{"buildFlags":["-tags=integration"],"staticcheck":false}`}, true,
			map[string]any{"buildFlags": 0.0, "env": 0.0, "settings": 2.0}, []string{"-tags"}},
		{"--settings @FILE", []string{"--settings", "@" + settingsFile}, true,
			map[string]any{"buildFlags": 0.0, "env": 0.0, "settings": 1.0}, []string{"-tags", settingsFile}},
		{"--env", []string{"--env", "GOFLAGS=-tags=integration", "--env", "SECRET_TOKEN=hunter2"}, true,
			map[string]any{"buildFlags": 0.0, "env": 2.0, "settings": 0.0}, []string{"GOFLAGS", "SECRET_TOKEN", "hunter2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fixtureRoot(t, "buildtags")
			p := startBinary(t, append([]string{"--root", root, "--gopls", gopls}, tt.flags...)...)
			initialized(t, p)
			var answers []string
			text, _, isError := p.call(2, "go_diagnostics", `{"files":["use.go"]}`)
			answers = append(answers, text)
			want := undefined
			if tt.tagged {
				want = "no diagnostics"
			}
			if isError || !strings.Contains(text, want) {
				t.Errorf("diagnostics of use.go: %q (isError %v), want %q", text, isError, want)
			}
			text, _, isError = p.call(3, "go_definition", `{"file":"use.go","line":7,"column":9,"name":"Integrated"}`)
			answers = append(answers, text)
			if tt.tagged && (isError || text != definition) {
				t.Errorf("definition of Integrated: %q (isError %v), want %q", text, isError, definition)
			}
			if !tt.tagged && text != "no definition found" {
				t.Errorf("definition of Integrated without the tag: %q (isError %v), want none found", text, isError)
			}

			text, structured, isError := p.call(4, "go_workspace", `{}`)
			if isError {
				t.Fatalf("go_workspace: %s", text)
			}
			data, _ := json.Marshal(structured)
			answers = append(answers, text, string(data))
			var wantCounts any
			if tt.counts != nil {
				wantCounts = tt.counts
			}
			if diff := cmp.Diff(wantCounts, structured["buildContext"]); diff != "" {
				t.Errorf("go_workspace buildContext (-want +got):\n%s", diff)
			}
			p.send(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"goplsmcp://limits"}}`)
			m := p.recv()
			limits := m["result"].(map[string]any)["contents"].([]any)[0].(map[string]any)["text"].(string)
			answers = append(answers, limits)
			var lim map[string]any
			if err := json.Unmarshal([]byte(limits), &lim); err != nil {
				t.Fatal(err)
			}
			wantLimits := tt.counts
			if wantLimits == nil {
				wantLimits = map[string]any{"buildFlags": 0.0, "env": 0.0, "settings": 0.0}
			}
			if diff := cmp.Diff(wantLimits, lim["buildContext"]); diff != "" {
				t.Errorf("goplsmcp://limits buildContext (-want +got):\n%s", diff)
			}
			for _, secret := range tt.secrets {
				for _, a := range answers {
					// The package's own identifiers say "integration"; the
					// flag's value must not show beyond them.
					a = strings.NewReplacer("integration.go", "", `"integration"`, "", "undefined", "").Replace(a)
					if strings.Contains(a, secret) {
						t.Errorf("an answer shows %q:\n%s", secret, a)
					}
				}
			}
		})
	}
}

// TestBadBuildContext: build context flags that cannot work are usage
// errors, before gopls starts.
func TestBadBuildContext(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--settings", "staticcheck"}, "want a JSON object of gopls settings"},
		{[]string{"--settings", "[1]"}, "want a JSON object of gopls settings"},
		{[]string{"--settings", `{"pullDiagnostics":false}`}, "goplsmcp relies on the gopls setting pullDiagnostics"},
		{[]string{"--settings", `{"env":{"A":1}}`}, `"env" must be an object of strings`},
		{[]string{"--settings", `{"buildFlags":"-tags=x"}`}, `"buildFlags" must be an array of strings`},
		{[]string{"--settings", "@" + filepath.Join(t.TempDir(), "none.json")}, "no such file or directory"},
		{[]string{"--env", "NOEQUALS"}, "want KEY=VALUE"},
		{[]string{"--env", "=value"}, "want KEY=VALUE"},
		{[]string{"--tools", " , "}, "name at least one tool"},
		{[]string{"--json"}, "--json is for goplsmcp call"},
	} {
		_, stderr, code := runOnce(t, "", append(tt.args, "--gopls", goplsPath(t), "--root", t.TempDir())...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("goplsmcp %v: exit %d, stderr %q; want exit 2 saying %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestToolsFlag: with --tools, only the tools named are listed and
// callable, the list is smaller, and an unknown name is a usage error
// that lists the valid ones.
func TestToolsFlag(t *testing.T) {
	root := exampleRoot(t)
	list := func(args ...string) (int, []string, *proc) {
		t.Helper()
		p := startBinary(t, append([]string{"--root", root, "--gopls", goplsPath(t)}, args...)...)
		initialized(t, p)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		m := p.recv()
		data, _ := json.Marshal(m)
		var names []string
		for _, tool := range m["result"].(map[string]any)["tools"].([]any) {
			names = append(names, tool.(map[string]any)["name"].(string))
		}
		return len(data), names, p
	}
	fullSize, all, _ := list()
	size, names, p := list("--tools", "go_definition, go_workspace", "--tools", "go_describe")
	// In the registry's order, not the flag's.
	named := []string{"go_definition", "go_workspace", "go_describe"}
	want := slices.DeleteFunc(bridge.DefaultTools(), func(tool string) bool { return !slices.Contains(named, tool) })
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools listed with --tools (-want +got):\n%s", diff)
	}
	t.Logf("tools/list: %d bytes with all %d tools, %d with %d", fullSize, len(all), size, len(names))
	if size*3 > fullSize {
		t.Errorf("tools/list is %d bytes with 3 tools, %d with all %d: it should shrink", size, fullSize, len(all))
	}
	if text, _, isError := p.call(3, "go_symbols", `{"file":"main.go"}`); !isError || text != "unknown tool" {
		t.Errorf("a tool left out: %q (isError %v), want unknown tool", text, isError)
	}
	if text, _, isError := p.call(4, "go_definition", `{"file":"main.go","symbol":"report.Summary"}`); isError {
		t.Errorf("a tool kept: %s", text)
	}

	// gopls mcp's optional tools are offered only when named.
	if _, names, _ := list("--tools", "go_references,go_workspace"); !slices.Equal(names, []string{"go_workspace", "go_references"}) {
		t.Errorf("tools listed with --tools go_references,go_workspace: %v", names)
	}
	if slices.Contains(all, "go_references") {
		t.Errorf("go_references is listed by default: %v", all)
	}

	_, stderr, code := runOnce(t, "", "--root", root, "--gopls", goplsPath(t), "--tools", "go_definition,go_nope,go_never")
	if code != 2 || !strings.Contains(stderr, "--tools: no such tool: go_nope, go_never; the tools are "+strings.Join(all, ", ")) {
		t.Errorf("unknown tools: exit %d, stderr:\n%s", code, stderr)
	}
}

// realTempDir is a temporary directory named without symbolic links.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// repoRoot is the repository, the Docker build context.
const repoRoot = "../.."

// A dockerInstr is one instruction of a Dockerfile, continuation lines
// joined.
type dockerInstr struct {
	line int
	cmd  string // FROM, RUN, ...
	args string
}

// A dockerStage is the instructions after one FROM.
type dockerStage struct {
	name, base string
	instrs     []dockerInstr
}

// parseDockerfile reads the stages of a Dockerfile.
func parseDockerfile(t *testing.T, path string) []*dockerStage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stages []*dockerStage
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(lines[i])
			if strings.HasPrefix(next, "#") {
				next = `\` // a comment inside an instruction is dropped
			}
			line = strings.TrimSuffix(line, `\`) + " " + next
		}
		cmd, args, _ := strings.Cut(line, " ")
		cmd, args = strings.ToUpper(cmd), strings.TrimSpace(args)
		if cmd == "FROM" {
			f := strings.Fields(args)
			st := &dockerStage{base: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			}
			stages = append(stages, st)
			continue
		}
		if len(stages) == 0 {
			t.Fatalf("%s:%d: %s before FROM", path, start, cmd)
		}
		st := stages[len(stages)-1]
		st.instrs = append(st.instrs, dockerInstr{start, cmd, args})
	}
	return stages
}

// execForm decodes an instruction's JSON array form.
func execForm(t *testing.T, in dockerInstr) []string {
	t.Helper()
	var argv []string
	if err := json.Unmarshal([]byte(in.args), &argv); err != nil || len(argv) == 0 {
		t.Fatalf("Dockerfile:%d: %s wants the exec form, a JSON array: %v", in.line, in.cmd, err)
	}
	return argv
}

// envPairs decodes ENV KEY=VALUE ... (values without spaces or quotes).
func envPairs(t *testing.T, in dockerInstr) [][2]string {
	t.Helper()
	var out [][2]string
	for _, f := range strings.Fields(in.args) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || strings.ContainsAny(v, `"'$`) {
			t.Fatalf("Dockerfile:%d: the test reads ENV KEY=VALUE pairs only, not %q", in.line, f)
		}
		out = append(out, [2]string{k, v})
	}
	return out
}

// dockerignore reads the build context's exclusions: paths, each of which
// leaves out itself and what is under it.
func dockerignore(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsAny(line, "*?[!") {
			t.Fatalf(".dockerignore: the test knows plain paths only, not %q", line)
		}
		out = append(out, strings.Trim(filepath.Clean(line), "/"))
	}
	return out
}

// copyContext copies the build context's src (a path in it, "." for all
// of it) to dst, leaving out what .dockerignore names.
func copyContext(t *testing.T, ignore []string, src, dst string) {
	t.Helper()
	from := filepath.Join(repoRoot, src)
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		for _, ig := range ignore {
			if rel == ig || strings.HasPrefix(rel, ig+"/") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		inner, _ := filepath.Rel(from, path)
		to := filepath.Join(dst, inner)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case info.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyFile copies one file, keeping its mode.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

// runtimeImage is what TestDockerfile learnt of the final stage.
type runtimeImage struct {
	env         [][2]string
	user        string
	workdir     string
	port        string
	healthcheck []string
	cmd         []string
}

// readRuntime reads the final stage of the Dockerfile.
func readRuntime(t *testing.T, st *dockerStage) *runtimeImage {
	t.Helper()
	img := &runtimeImage{}
	for _, in := range st.instrs {
		switch in.cmd {
		case "ENV":
			img.env = append(img.env, envPairs(t, in)...)
		case "USER":
			img.user = in.args
		case "WORKDIR":
			img.workdir = in.args
		case "EXPOSE":
			img.port = in.args
		case "HEALTHCHECK":
			_, cmd, ok := strings.Cut(in.args, "CMD ")
			if !ok {
				t.Fatalf("Dockerfile:%d: HEALTHCHECK without CMD", in.line)
			}
			img.healthcheck = execForm(t, dockerInstr{in.line, in.cmd, cmd})
		case "CMD":
			img.cmd = execForm(t, in)
		}
	}
	return img
}

// getenv returns an ENV value of the image.
func (img *runtimeImage) getenv(key string) string {
	for _, kv := range slices.Backward(img.env) {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}

// TestDockerfile runs the Dockerfile's recipe without a container
// runtime, so that it cannot drift from what works. The build stage's
// WORKDIR, COPY (with .dockerignore) and RUN lines are carried out as
// written, in a temporary directory standing for the stage's file system,
// with this machine's Go toolchain standing for the golang image's (and
// its module and build caches, which make it quick). Then the runtime
// stage's file system gets the stage's COPY --from lines (the toolchain
// linked, the binaries copied), its ENV (paths mapped into it), a fixture
// as the workspace and a token, and the default command runs in it, with
// the port made a free one: /healthz and /readyz answer, the HEALTHCHECK
// command succeeds, one MCP call with the token answers on the workspace,
// and SIGTERM ends it. The runtime stage's RUN lines install Debian
// packages and the user, which this machine stands in for; the user must
// not be root.
func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile"))
	if len(stages) != 2 || stages[0].name == "" {
		t.Fatalf("Dockerfile: %d stages, want a named build stage and the runtime stage", len(stages))
	}
	build, final := stages[0], stages[1]
	ignore := dockerignore(t)
	tmp := realTempDir(t)
	buildFS, rtFS := filepath.Join(tmp, "build"), filepath.Join(tmp, "runtime")
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}

	// The build stage.
	workdir := "/"
	var env []string
	for _, in := range build.instrs {
		dir := filepath.Join(buildFS, workdir)
		switch in.cmd {
		case "WORKDIR":
			workdir = filepath.Join(workdir, in.args)
			if err := os.MkdirAll(filepath.Join(buildFS, workdir), 0o755); err != nil {
				t.Fatal(err)
			}
		case "ENV":
			for _, kv := range envPairs(t, in) {
				env = append(env, kv[0]+"="+kv[1])
			}
		case "COPY":
			f := strings.Fields(in.args)
			if len(f) < 2 || strings.HasPrefix(f[0], "--") {
				t.Fatalf("Dockerfile:%d: the test knows COPY SRC... DST from the context only", in.line)
			}
			srcs, dst := f[:len(f)-1], f[len(f)-1]
			for _, src := range srcs {
				switch {
				case src == ".":
					copyContext(t, ignore, ".", filepath.Join(dir, dst))
				case strings.HasSuffix(dst, "/"):
					copyContext(t, ignore, src, filepath.Join(dir, dst, filepath.Base(src)))
				default:
					copyContext(t, ignore, src, filepath.Join(dir, dst))
				}
			}
		case "RUN":
			if strings.HasPrefix(in.args, "--") || strings.HasPrefix(in.args, "[") {
				t.Fatalf("Dockerfile:%d: the test runs RUN in its shell form, without flags", in.line)
			}
			began := time.Now()
			cmd := exec.Command("sh", "-c", in.args)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("Dockerfile:%d: RUN %s: %v\n%s", in.line, in.args, err, out)
			}
			t.Logf("Dockerfile:%d: RUN %s (%s)", in.line, in.args, time.Since(began).Round(time.Millisecond))
		default:
			t.Fatalf("Dockerfile:%d: the test does not know how to carry out %s in the build stage", in.line, in.cmd)
		}
	}

	// The runtime stage's file system.
	inRT := func(p string) string { return filepath.Join(rtFS, p) }
	for _, in := range final.instrs {
		switch in.cmd {
		case "COPY":
			f := strings.Fields(in.args)
			if len(f) < 3 || f[0] != "--from="+build.name {
				t.Fatalf("Dockerfile:%d: the runtime stage copies from the build stage only", in.line)
			}
			srcs, dst := f[1:len(f)-1], f[len(f)-1]
			for _, src := range srcs {
				to := inRT(dst)
				if strings.HasSuffix(dst, "/") {
					to = filepath.Join(to, filepath.Base(src))
				}
				switch from := filepath.Join(buildFS, src); {
				case src == "/usr/local/go":
					// The golang image's toolchain is this machine's.
					if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(strings.TrimSpace(string(goroot)), to); err != nil {
						t.Fatal(err)
					}
				default:
					copyFile(t, from, to)
				}
			}
		case "RUN":
			t.Logf("Dockerfile:%d: not run here (Debian packages, the user): RUN %s", in.line, in.args)
		case "ENV", "USER", "WORKDIR", "EXPOSE", "HEALTHCHECK", "CMD":
		default:
			t.Fatalf("Dockerfile:%d: the test does not know how to carry out %s in the runtime stage", in.line, in.cmd)
		}
	}
	img := readRuntime(t, final)
	uid, _, _ := strings.Cut(img.user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("USER %q: want a numeric user other than root (runAsNonRoot can check only a number)", img.user)
	}
	if img.workdir != "/workspace" {
		t.Errorf("WORKDIR %q, want /workspace", img.workdir)
	}

	// The environment, paths mapped into the runtime's file system; PATH
	// ends with this machine's (for sh and curl, which the image installs).
	runEnv := os.Environ()
	var path []string
	for _, kv := range img.env {
		k, v := kv[0], kv[1]
		if k == "PATH" {
			for _, d := range filepath.SplitList(v) {
				path = append(path, inRT(d))
			}
			runEnv = append(runEnv, "PATH="+strings.Join(path, ":")+":"+os.Getenv("PATH"))
			continue
		}
		if strings.HasPrefix(v, "/") {
			v = inRT(v)
			if err := os.MkdirAll(v, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		runEnv = append(runEnv, k+"="+v)
	}
	lookPath := func(name string) string {
		for _, d := range path {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				return filepath.Join(d, name)
			}
		}
		t.Fatalf("%s is not on the image's PATH", name)
		return ""
	}

	// The default command, with the workspace and the token in place.
	argv := slices.Clone(img.cmd)
	wantCmd := []string{"goplsmcp", "--http", "0.0.0.0:" + img.port, "--token-file", "/run/secrets/goplsmcp-token", "--root", "/workspace"}
	if diff := cmp.Diff(wantCmd, argv); diff != "" {
		t.Errorf("CMD (-want +got):\n%s", diff)
	}
	var tokenFile, root string
	for i, a := range argv {
		switch {
		case i == 0:
			argv[i] = lookPath(a)
		case strings.HasSuffix(a, ":"+img.port):
			argv[i] = strings.TrimSuffix(a, img.port) + "0"
		case strings.HasPrefix(a, "/"):
			argv[i] = inRT(a)
			switch argv[i-1] {
			case "--token-file":
				tokenFile = argv[i]
			case "--root":
				root = argv[i]
			}
		}
	}
	if tokenFile == "" || root == "" {
		t.Fatalf("CMD %q names no --token-file or --root", img.cmd)
	}
	if err := os.CopyFS(root, os.DirFS(filepath.Join(repoRoot, "testdata/example"))); err != nil {
		t.Fatal(err)
	}
	const token = "dockerfile-token-0123456789abcdef"
	if err := os.MkdirAll(filepath.Dir(tokenFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = inRT(img.workdir)
	cmd.Env = runEnv
	p := startCmd(t, cmd)
	pid := p.goplsPID()
	url := p.stderrMatch(`msg="serving MCP over HTTP.* url=(\S+)`)[0]
	base := strings.TrimSuffix(url, "/mcp")
	_, port, _ := strings.Cut(strings.TrimPrefix(base, "http://"), ":")
	t.Logf("running %s", strings.Join(img.cmd, " "))

	s := &sidecar{proc: p, t: t, base: base, token: token, root: root, gopls: pid}
	if status, _ := s.probe("GET", "/healthz"); status != 200 {
		t.Errorf("GET /healthz: %d", status)
	}
	s.waitProbe("/readyz", 200)

	hc := slices.Clone(img.healthcheck)
	for i, a := range hc {
		hc[i] = strings.ReplaceAll(a, ":"+img.port+"/", ":"+port+"/")
	}
	if out, err := exec.Command(hc[0], hc[1:]...).CombinedOutput(); err != nil {
		t.Errorf("HEALTHCHECK %q: %v\n%s", hc, err, out)
	}

	session := s.initialize()
	resp := s.post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"go_workspace","arguments":{}}}`)
	var answer struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil || answer.Result.IsError || len(answer.Result.Content) == 0 || !strings.HasPrefix(answer.Result.Content[0].Text, "root: "+root+"\n") {
		t.Errorf("go_workspace in the image: %v %+v", err, answer)
	}
	s.stop(pid)
}

// The parts of Kubernetes objects TestKubernetesManifest reads.
type (
	k8sObject struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name   string            `yaml:"name"`
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec yaml.Node `yaml:"spec"`
	}
	k8sDeploymentSpec struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec k8sPodSpec `yaml:"spec"`
		} `yaml:"template"`
	}
	k8sPodSpec struct {
		AutomountServiceAccountToken  *bool          `yaml:"automountServiceAccountToken"`
		TerminationGracePeriodSeconds *int           `yaml:"terminationGracePeriodSeconds"`
		SecurityContext               k8sSecurity    `yaml:"securityContext"`
		Containers                    []k8sContainer `yaml:"containers"`
		Volumes                       []k8sVolume    `yaml:"volumes"`
	}
	k8sSecurity struct {
		RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
		RunAsUser                *int  `yaml:"runAsUser"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
	}
	k8sContainer struct {
		Name    string   `yaml:"name"`
		Image   string   `yaml:"image"`
		Command []string `yaml:"command"`
		Args    []string `yaml:"args"`
		Ports   []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		StartupProbe   *k8sProbe `yaml:"startupProbe"`
		LivenessProbe  *k8sProbe `yaml:"livenessProbe"`
		ReadinessProbe *k8sProbe `yaml:"readinessProbe"`
		Resources      struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext k8sSecurity `yaml:"securityContext"`
		VolumeMounts    []k8sMount  `yaml:"volumeMounts"`
	}
	k8sProbe struct {
		HTTPGet *struct {
			Path string `yaml:"path"`
			Port string `yaml:"port"`
		} `yaml:"httpGet"`
	}
	k8sMount struct {
		Name      string `yaml:"name"`
		SubPath   string `yaml:"subPath"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	}
	k8sVolume struct {
		Name   string `yaml:"name"`
		Secret *struct {
			SecretName string `yaml:"secretName"`
			Items      []struct {
				Key  string `yaml:"key"`
				Path string `yaml:"path"`
			} `yaml:"items"`
		} `yaml:"secret"`
		EmptyDir *struct {
			SizeLimit string `yaml:"sizeLimit"`
		} `yaml:"emptyDir"`
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
	}
	k8sServiceSpec struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	}
)

// quantity reads a Kubernetes memory or CPU quantity (Ki/Mi/Gi, m).
func quantity(t *testing.T, q string) float64 {
	t.Helper()
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"m", 1e-3}, {"", 1}} {
		if num, ok := strings.CutSuffix(q, u.suffix); ok {
			if v, err := strconv.ParseFloat(num, 64); err == nil {
				return v * u.scale
			}
		}
	}
	t.Fatalf("quantity %q", q)
	return 0
}

// TestKubernetesManifest reads deploy/kubernetes.yaml as YAML and checks
// the sidecar it describes against the Dockerfile and goplsmcp's own
// flags: the command line is the image's default plus Host names, and
// parses; the probes are on /healthz and /readyz at the MCP port; the
// token comes from a Secret at --token-file; the workspace is the dev
// container's volume, mounted read-only at --root; the module cache is
// read-only too; the only writable mounts are emptyDirs at the image's
// XDG_CACHE_HOME and /tmp; the container runs as non-root on a read-only
// root file system; it has resource requests; and the Service reaches the
// MCP port, by a name the Host check allows.
func TestKubernetesManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy/kubernetes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objects := map[string]k8sObject{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var o k8sObject
		if err := dec.Decode(&o); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("deploy/kubernetes.yaml is not YAML: %v", err)
		}
		if o.APIVersion == "" || o.Metadata.Name == "" {
			t.Errorf("an object without apiVersion or name: %+v", o)
		}
		objects[o.Kind] = o
	}
	var dep k8sDeploymentSpec
	var svc k8sServiceSpec
	if o, ok := objects["Deployment"]; !ok || o.Spec.Decode(&dep) != nil {
		t.Fatal("no Deployment")
	}
	if o, ok := objects["Service"]; !ok || o.Spec.Decode(&svc) != nil {
		t.Fatal("no Service")
	}
	pod := dep.Template.Spec
	var sidecar, devbox *k8sContainer
	for i := range pod.Containers {
		switch c := &pod.Containers[i]; c.Name {
		case "goplsmcp":
			sidecar = c
		default:
			devbox = c
		}
	}
	if sidecar == nil || devbox == nil {
		t.Fatalf("containers %v: want goplsmcp beside a dev environment", pod.Containers)
	}
	img := readRuntime(t, parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile"))[1])

	// The command line.
	argv := append(slices.Clone(sidecar.Command), sidecar.Args...)
	if len(argv) < len(img.cmd) || !slices.Equal(argv[:len(img.cmd)], img.cmd) {
		t.Errorf("command %q: want the image's default command %q, then more flags", argv, img.cmd)
	}
	cfg := &config{}
	fs := newFlagSet(cfg)
	if err := fs.Parse(argv[1:]); err != nil || fs.NArg() > 0 {
		t.Fatalf("goplsmcp %q: %v", argv[1:], err)
	}
	if err := cfg.check(); err != nil {
		t.Fatalf("goplsmcp %q: %v", argv[1:], err)
	}
	_, port, _ := strings.Cut(cfg.http, ":")
	portName := ""
	for _, p := range sidecar.Ports {
		if strconv.Itoa(p.ContainerPort) == port {
			portName = p.Name
		}
	}
	if portName == "" {
		t.Fatalf("no container port for --http %s", cfg.http)
	}

	// Probes.
	for _, pr := range []struct {
		what  string
		probe *k8sProbe
		path  string
	}{
		{"livenessProbe", sidecar.LivenessProbe, "/healthz"},
		{"readinessProbe", sidecar.ReadinessProbe, "/readyz"},
		{"startupProbe", sidecar.StartupProbe, "/healthz"},
	} {
		if pr.probe == nil || pr.probe.HTTPGet == nil {
			t.Errorf("%s: none, want an httpGet of %s on port %s", pr.what, pr.path, portName)
		} else if get := *pr.probe.HTTPGet; get.Path != pr.path || (get.Port != portName && get.Port != port) {
			t.Errorf("%s: httpGet %+v, want %s on port %s", pr.what, get, pr.path, portName)
		}
	}

	// Mounts.
	volumes := map[string]k8sVolume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	mounts := map[string]k8sMount{}
	for _, m := range sidecar.VolumeMounts {
		mounts[m.MountPath] = m
		if _, ok := volumes[m.Name]; !ok {
			t.Errorf("mount %s: no volume %s", m.MountPath, m.Name)
		}
	}
	writable := map[string]bool{img.getenv("XDG_CACHE_HOME"): true, "/tmp": true}
	for path := range writable {
		m, ok := mounts[path]
		if !ok || m.ReadOnly || volumes[m.Name].EmptyDir == nil {
			t.Errorf("mount at %s: %+v, want a writable emptyDir (the root file system is read-only)", path, m)
		}
	}
	for _, m := range mounts {
		if !writable[m.MountPath] && !m.ReadOnly {
			t.Errorf("mount at %s is writable; goplsmcp writes nothing", m.MountPath)
		}
	}
	if m, ok := mounts[cfg.tokenFile]; !ok || volumes[m.Name].Secret == nil || volumes[m.Name].Secret.SecretName == "" {
		t.Errorf("--token-file %s: mount %+v, want a file from a Secret", cfg.tokenFile, m)
	}
	for _, path := range []string{cfg.root, img.getenv("GOMODCACHE")} {
		m, ok := mounts[path]
		if !ok {
			t.Errorf("nothing mounted at %s", path)
			continue
		}
		shared := false
		for _, d := range devbox.VolumeMounts {
			if d.Name == m.Name && d.SubPath == m.SubPath && !d.ReadOnly {
				shared = true
			}
		}
		if !shared || volumes[m.Name].PersistentVolumeClaim == nil {
			t.Errorf("%s: mount %+v, want the volume the dev container writes, here read-only", path, m)
		}
	}

	// Security.
	sc, psc := sidecar.SecurityContext, pod.SecurityContext
	if !(sc.RunAsNonRoot != nil && *sc.RunAsNonRoot || sc.RunAsNonRoot == nil && psc.RunAsNonRoot != nil && *psc.RunAsNonRoot) {
		t.Error("the sidecar does not say runAsNonRoot: true")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("the sidecar does not say readOnlyRootFilesystem: true")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("the sidecar does not say allowPrivilegeEscalation: false")
	}
	uid, _, _ := strings.Cut(img.user, ":")
	if u := psc.RunAsUser; u != nil && strconv.Itoa(*u) != uid {
		t.Errorf("runAsUser %d, the image's user is %s", *u, uid)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the pod mounts a service account token it does not need")
	}
	if g := pod.TerminationGracePeriodSeconds; g != nil && time.Duration(*g)*time.Second <= drainBound {
		t.Errorf("terminationGracePeriodSeconds %d: goplsmcp may take %s to drain", *g, drainBound)
	}

	// Resources.
	req, lim := sidecar.Resources.Requests, sidecar.Resources.Limits
	if req["cpu"] == "" || req["memory"] == "" || lim["memory"] == "" {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit", sidecar.Resources)
	} else if quantity(t, req["memory"]) > quantity(t, lim["memory"]) {
		t.Errorf("memory request %s above its limit %s", req["memory"], lim["memory"])
	}

	// The Service.
	for k, v := range svc.Selector {
		if dep.Template.Metadata.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, which the pod is not labelled", k, v)
		}
	}
	reaches := false
	for _, p := range svc.Ports {
		reaches = reaches || p.TargetPort == portName || p.TargetPort == port
	}
	if !reaches {
		t.Errorf("the Service's ports %+v do not reach the MCP port %s", svc.Ports, port)
	}
	if name := objects["Service"].Metadata.Name; !slices.Contains(cfg.allowHosts, name) {
		t.Errorf("--allow-host does not name the Service %s: clients using it would get 403", name)
	}
}
