package bridge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/mod/module"
)

// vulncheckBound bounds a scan: govulncheck builds the call graph of the
// whole pattern, which takes minutes on a large module.
const vulncheckBound = 10 * time.Minute

// VulncheckInput is the input of go_vulncheck, with gopls mcp's
// parameters.
type VulncheckInput struct {
	Dir     string `json:"dir,omitempty" jsonschema:"directory, relative to the root (default the root)"`
	Pattern string `json:"pattern,omitempty" jsonschema:"package pattern (default ./...)"`
}

// VulncheckOutput is the result of go_vulncheck.
type VulncheckOutput struct {
	Findings mcp.OrderedMap[VulnFinding] `json:"findings" jsonschema:"known vulnerabilities by ID, those the code calls first"`
}

// VulnFinding is one known vulnerability of a dependency.
type VulnFinding struct {
	Module  string   `json:"module" jsonschema:"the affected module at the version in use, module@version (stdlib for the standard library)"`
	Fixed   string   `json:"fixed,omitempty" jsonschema:"the version that fixes it; left out when none does"`
	Status  string   `json:"status" jsonschema:"called (the code calls a vulnerable symbol), imported (a vulnerable package is imported, no vulnerable symbol called) or required (the module is required, the package not imported)"`
	Summary string   `json:"summary,omitempty" jsonschema:"what the vulnerability is"`
	Path    []string `json:"path,omitempty" jsonschema:"when called, one call path from the code to the vulnerable symbol: path:line:col: F calls G, each where it calls the next, then the symbol where it is declared; 1-based, byte columns, as go vet prints them"`
}

// Render implements mcp.Renderer: a count line, then each vulnerability
// on a line (ID, module, fix, status, summary) with its call path below.
func (o *VulncheckOutput) Render() string {
	n := o.Findings.Len()
	if n == 0 {
		return "no known vulnerabilities"
	}
	called := 0
	o.Findings.All(func(_ string, f VulnFinding) {
		if f.Status == "called" {
			called++
		}
	})
	var b strings.Builder
	noun := "known vulnerabilities"
	if n == 1 {
		noun = "known vulnerability"
	}
	fmt.Fprintf(&b, "%d %s, %d called by the code\n", n, noun, called)
	o.Findings.All(func(id string, f VulnFinding) {
		b.WriteString(id + " " + f.Module)
		if f.Fixed != "" {
			b.WriteString(" (fixed in " + f.Fixed + ")")
		} else {
			b.WriteString(" (no fix)")
		}
		b.WriteString(" " + f.Status)
		if f.Summary != "" {
			b.WriteString(": " + f.Summary)
		}
		b.WriteString("\n")
		for _, p := range f.Path {
			b.WriteString("  " + p + "\n")
		}
	})
	return strings.TrimSuffix(b.String(), "\n")
}

// vulncheckTool is go_vulncheck's entry in the catalogue (see ToolSpec).
var vulncheckTool = ToolSpec{
	Name:        "go_vulncheck",
	Title:       "Vulnerability check",
	Description: "Security: known vulnerabilities (CVE, GO-IDs) in dependencies and the standard library, and if the code calls them (govulncheck). Needs a local database (GOVULNDB) or --allow-network.",
	Narrow:      "narrow the call: pass a narrower pattern",
	Instruction: "known vulnerabilities in dependencies.",
	Skill:       "Known vulnerabilities the code reaches",
	Doc:         "known vulnerabilities of the module's dependencies (and the standard library), with `gopls mcp`'s parameters (`dir`, `pattern`, default `./...`): each by ID with the affected module at the version in use, the fixed version, whether the code calls the vulnerable symbol (`called`), only imports its package (`imported`) or only requires the module (`required`), and one call path; see [Vulnerabilities](flags.md#vulnerabilities-go_vulncheck)",
	Summary:     "known vulnerabilities of the dependencies, and whether the code calls them",
	Framing:     []string{`^\d+ known vulnerabilit(y|ies), \d+ called by the code$`, `^no known vulnerabilities$`, `\((fixed in \S+|no fix)\)`},
	Good:        Sample{Args: `{"pattern": "./shapes/..."}`, Want: "no known vulnerabilities"},
	Bad:         Sample{Args: `{"pattern": "-json"}`, Want: `^pattern "-json" is not a package pattern`},
	Questions: []string{
		"security vulnerabilities in dependencies",
		"is this module affected by a CVE",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.vulncheck) },
}

func (b *Bridge) vulncheck(ctx context.Context, in *VulncheckInput) (*VulncheckOutput, error) {
	// The workspace's modules, new ones included.
	ctx = lspclient.WorkspaceWide(ctx)
	// The arguments first: a dir outside the root is refused whatever
	// the database.
	dir := b.root
	if in.Dir != "" {
		d, err := b.addr.Dir(in.Dir)
		if err != nil {
			return nil, err
		}
		dir = d
	}
	if err := b.vulnDBReady(); err != nil {
		return nil, err
	}
	pattern := strings.TrimSpace(in.Pattern)
	if pattern == "" {
		pattern = "./..."
	}
	if err := checkPattern(pattern); err != nil {
		return nil, err
	}
	mcp.ReportProgress(ctx, fmt.Sprintf("govulncheck: checking %s in %s", pattern, b.displayPath(dir)))
	r, err := b.runGovulncheck(ctx, dir, pattern)
	if err != nil {
		return nil, err
	}
	out := &VulncheckOutput{}
	mods, err := b.moduleDirs(ctx)
	if err != nil {
		return nil, err
	}
	b.shapeVulns(out, r, mods, dir)
	return out, nil
}

// maxVulncheckStderr bounds what is kept of govulncheck's error output.
const maxVulncheckStderr = 64 << 10

// runGovulncheck runs gopls's govulncheck, as gopls does for its own
// vulncheck command and gopls mcp's tool: gopls vulncheck, a process of
// its own (it loads and analyses the whole pattern, and ends), in source
// mode at symbol level, with the database GOVULNDB names and the
// environment of gopls's go command (offline unless --allow-network). It
// reads the files on disk. Its progress is the call's; cancelling the
// call stops it and the go commands it runs.
//
// gopls's workspace/executeCommand gopls.vulncheck runs the same scan,
// but refuses while gopls holds any unsaved text or snippet (which the
// other tools open as a matter of course) and stores the findings in
// gopls's go.mod diagnostics, which would change later answers.
func (b *Bridge) runGovulncheck(ctx context.Context, dir, pattern string) (*vulnResult, error) {
	scan, cancel := context.WithTimeout(ctx, vulncheckBound)
	defer cancel()
	args := []string{"vulncheck", "--", "-json", "-mode", "source", "-scan", "symbol", "-C", dir}
	if db := b.client.LookupGoEnv("GOVULNDB"); db != "" {
		args = append(args, "-db", db)
	}
	args = append(args, pattern)
	cmd := exec.CommandContext(scan, b.client.GoplsPath(), args...)
	cmd.Dir = dir
	cmd.Env = b.client.GoCommandEnv()
	inProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	var stderr boundedBuffer
	stderr.max = maxVulncheckStderr
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, mcp.InternalError(fmt.Errorf("starting gopls vulncheck: %w", err))
	}
	r := &vulnResult{Entries: map[string]vulnEntry{}}
	dec := json.NewDecoder(stdout)
	var decodeErr error
	for {
		var msg struct {
			Progress *struct {
				Message string `json:"message"`
			} `json:"progress"`
			OSV     *vulnEntry   `json:"osv"`
			Finding *vulnFinding `json:"finding"`
		}
		if err := dec.Decode(&msg); err != nil {
			if err != io.EOF {
				decodeErr = err
			}
			break
		}
		switch {
		case msg.Progress != nil && msg.Progress.Message != "":
			mcp.ReportProgress(ctx, "govulncheck: "+strings.TrimSpace(msg.Progress.Message))
		case msg.OSV != nil:
			r.Entries[msg.OSV.ID] = *msg.OSV
		case msg.Finding != nil:
			r.Findings = append(r.Findings, *msg.Finding)
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case scan.Err() != nil:
		return nil, fmt.Errorf("govulncheck did not finish within %s; pass a narrower pattern", vulncheckBound)
	case err != nil:
		msg := stderr.String()
		if first, ok := b.loadError(msg); ok {
			return nil, fmt.Errorf("govulncheck loads only packages that compile, and one in %s does not (%s); fix it (see go_diagnostics) or pass a pattern that leaves it out", render.Quote(pattern), render.ClipN(first, ask.MessageChars))
		}
		why := strings.Join(strings.Fields(strings.ReplaceAll(msg, b.root+string(filepath.Separator), "")), " ")
		if why == "" {
			why = err.Error()
		}
		return nil, fmt.Errorf("govulncheck failed: %s", render.ClipN(why, ask.MessageChars))
	case decodeErr != nil:
		return nil, fmt.Errorf("reading govulncheck's answer: %v", decodeErr)
	}
	return r, nil
}

// boundedBuffer keeps the first max bytes written to it.
type boundedBuffer struct {
	bytes.Buffer
	max int
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := w.max - w.Len(); room > 0 {
		w.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// loadError finds in gopls's report of a failed scan the first error of
// the packages govulncheck could not load, with paths relative to the
// root.
func (b *Bridge) loadError(msg string) (string, bool) {
	_, after, ok := strings.Cut(msg, "errors with the provided package patterns:")
	if !ok {
		return "", false
	}
	for _, line := range strings.Split(after, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return strings.ReplaceAll(line, b.root+string(filepath.Separator), ""), true
		}
	}
	return "", false
}

// vulnResult is what go_vulncheck reads of govulncheck's answer.
type vulnResult struct {
	Entries  map[string]vulnEntry
	Findings []vulnFinding
}

// vulnEntry is the part of an OSV entry go_vulncheck shows.
type vulnEntry struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
	Details string `json:"details"`
}

// vulnFinding is one of govulncheck's findings: a vulnerability at the
// level of a module, a package or a called symbol.
type vulnFinding struct {
	OSV   string `json:"osv"`
	Fixed string `json:"fixed_version"`
	Trace []vulnFrame
}

// vulnFrame is one frame of a finding's trace: the vulnerable symbol
// first, the code's entry point last.
type vulnFrame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
	Position *struct {
		Filename string `json:"filename"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
	} `json:"position"`
}

// statusRank orders the statuses, the most urgent first.
var statusRank = map[string]int{"called": 0, "imported": 1, "required": 2}

// shapeVulns groups the findings of a scan by vulnerability.
func (b *Bridge) shapeVulns(out *VulncheckOutput, r *vulnResult, mods map[string]string, dir string) {
	type vuln struct {
		id string
		f  VulnFinding
	}
	byID := map[string]*vuln{}
	var list []*vuln
	for _, fd := range r.Findings {
		if len(fd.Trace) == 0 {
			continue
		}
		v := byID[fd.OSV]
		if v == nil {
			sink := fd.Trace[0]
			v = &vuln{id: fd.OSV, f: VulnFinding{Module: moduleAt(sink.Module, sink.Version), Fixed: fd.Fixed, Status: "required"}}
			e := r.Entries[fd.OSV]
			v.f.Summary = cmp.Or(strings.TrimSpace(e.Summary), render.FirstSentence(strings.Join(strings.Fields(e.Details), " ")))
			byID[fd.OSV] = v
			list = append(list, v)
		}
		status := "required"
		switch {
		case fd.Trace[0].Function != "":
			status = "called"
		case fd.Trace[0].Package != "":
			status = "imported"
		}
		if statusRank[status] < statusRank[v.f.Status] {
			v.f.Status = status
		}
		if status == "called" && v.f.Path == nil {
			v.f.Path = b.callPath(fd.Trace, mods, dir)
		}
	}
	slices.SortFunc(list, func(x, y *vuln) int {
		return cmp.Or(cmp.Compare(statusRank[x.f.Status], statusRank[y.f.Status]), cmp.Compare(x.id, y.id))
	})
	for _, v := range list {
		out.Findings.Set(v.id, v.f)
	}
}

// moduleAt names a module at a version.
func moduleAt(mod, version string) string {
	if version == "" {
		return mod
	}
	return mod + "@" + version
}

// callPath renders a trace from the entry point to the vulnerable symbol:
// each frame as the place it calls the next from, and the symbol as its
// declaration.
func (b *Bridge) callPath(trace []vulnFrame, mods map[string]string, dir string) []string {
	names := make([]string, len(trace))
	for i, f := range trace {
		name := f.Function
		switch {
		case strings.HasPrefix(f.Receiver, "*"):
			name = "(" + f.Receiver + ")." + name
		case f.Receiver != "":
			name = f.Receiver + "." + name
		}
		names[i] = path.Base(f.Package) + "." + name
	}
	var out []string
	for i := len(trace) - 1; i >= 0; i-- {
		step := names[i]
		if i > 0 {
			step += " calls " + names[i-1]
		}
		if at := b.framePlace(trace[i], mods, dir); at != "" {
			step = at + ": " + step
		}
		out = append(out, step)
	}
	return out
}

// framePlace renders where a frame is, as path:line:col, or "".
// govulncheck names files relative to their module's directory, with
// 1-based lines and byte columns, as answers show them.
func (b *Bridge) framePlace(f vulnFrame, mods map[string]string, dir string) string {
	if f.Position == nil || f.Position.Line <= 0 {
		return ""
	}
	modDir := mods[f.Module]
	switch {
	case modDir != "":
	case f.Module == "stdlib":
		modDir = filepath.Join(b.env.GOROOT(), "src")
	case f.Version != "":
		esc, err := module.EscapePath(f.Module)
		if err != nil || b.env.GOMODCACHE() == "" {
			return ""
		}
		modDir = filepath.Join(b.env.GOMODCACHE(), esc+"@"+f.Version)
	default:
		modDir = dir
	}
	file := filepath.Join(modDir, filepath.FromSlash(f.Position.Filename))
	return iplace.Pos{Line: f.Position.Line, Column: max(f.Position.Column, 1)}.In(b.displayPath(file))
}

// moduleDirs maps the workspace's modules to their directories, from
// gopls.
func (b *Bridge) moduleDirs(ctx context.Context) (map[string]string, error) {
	var res struct {
		Module map[string]struct{ GoMod string }
	}
	args := map[string]any{"Files": []string{lspclient.FileURI(b.root)}, "Recursive": true}
	if err := b.client.ExecuteCommand(ctx, "gopls.packages", args, &res); err != nil {
		return nil, ask.Error(err)
	}
	dirs := map[string]string{}
	for mod, m := range res.Module {
		if p, err := lspclient.URIPath(m.GoMod); err == nil && m.GoMod != "" {
			dirs[mod] = filepath.Dir(p)
		}
	}
	return dirs, nil
}

// vulnDBReady says what to pass when there is no vulnerability database
// govulncheck could read: goplsmcp is offline unless told otherwise, and
// the default database is on the network.
func (b *Bridge) vulnDBReady() error {
	db := b.client.LookupGoEnv("GOVULNDB")
	network := b.client.AllowsNetwork()
	switch {
	case db == "" && !network:
		return errors.New("go_vulncheck needs a vulnerability database and goplsmcp is offline: start it with --env GOVULNDB=file:///path/to/vulndb (a copy of the Go vulnerability database in its file layout), or with --allow-network to use https://vuln.go.dev")
	case db == "":
		return nil
	case strings.HasPrefix(db, "file:"):
		// As a file:// URI of this system: file:///C:/vulndb on Windows,
		// whose URL path /C:/vulndb is no Windows path.
		dir, err := lspclient.URIPath(db)
		if err != nil || dir == "" {
			return fmt.Errorf("GOVULNDB %s is not a valid file:// URL; start goplsmcp with --env GOVULNDB=file:///absolute/path/to/vulndb", render.Quote(db))
		}
		if _, err := os.Stat(filepath.Join(dir, "index", "modules.json")); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("GOVULNDB %s holds no vulnerability database (no index/modules.json); point --env GOVULNDB at a copy of the Go vulnerability database in its file layout", render.Quote(db))
			}
			return fmt.Errorf("GOVULNDB %s cannot be read: %v", render.Quote(db), iplace.PathErrText(err))
		}
		return nil
	case !network:
		return fmt.Errorf("GOVULNDB is %s, which is on the network, and goplsmcp is offline: start it with --allow-network, or with --env GOVULNDB=file:///path/to/vulndb", render.Quote(db))
	}
	return nil
}

// checkPattern accepts a package pattern as the go command reads one:
// import path characters, dots and slashes, never a flag; and, as a
// directory, one relative to dir that stays inside it.
func checkPattern(p string) error {
	bad := fmt.Errorf("pattern %s is not a package pattern; pass one such as \"./...\" or \"example.com/m/...\"", render.Quote(p))
	if strings.HasPrefix(p, "-") || len(p) > 512 {
		return bad
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/", r)) {
			return bad
		}
	}
	if strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") {
		return fmt.Errorf("pattern %s leaves dir; pass a pattern inside it, such as \"./...\", and dir for another module of the workspace", render.Quote(p))
	}
	return nil
}
