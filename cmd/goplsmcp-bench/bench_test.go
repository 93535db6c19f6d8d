package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMain lets the test binary be the CPU hog of table 11 and the hop
// of table 13, as the harness's binary is: both start os.Executable again.
func TestMain(m *testing.M) {
	if spec := os.Getenv(hogEnv); spec != "" {
		os.Exit(hogMain(spec, os.Stdin))
	}
	if prog := os.Getenv(hopEnv); prog != "" {
		os.Exit(hopMain(prog, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// TestFixtureUpToDate checks that testdata/bench is exactly what the
// generator writes, so that the committed fixture and the facts the
// harness relies on (200 uses of core.Wrap, ...) cannot drift apart.
// After changing the generator: go run ./cmd/goplsmcp-bench -generate testdata/bench
func TestFixtureUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := generateFixture(dir); err != nil {
		t.Fatal(err)
	}
	want, got := readTree(t, dir), readTree(t, "../../testdata/bench")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("testdata/bench differs from the generator's output; regenerate it with go run ./cmd/goplsmcp-bench -generate testdata/bench (-want +got):\n%s", diff)
	}
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := make(map[string]string)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestSmoke runs the whole harness in its quickest mode on the fixture,
// against a freshly built goplsmcp and the pinned gopls, and checks that
// every table is there and that the answers it compares are right. It
// checks no timing: on a shared machine they mean little at this size.
func TestSmoke(t *testing.T) {
	gopls, err := filepath.Abs("../../bin/gopls")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gopls); err != nil {
		t.Fatalf("%s is missing: run make build (or make test) first", gopls)
	}
	bin := filepath.Join(t.TempDir(), "goplsmcp")
	if out, err := exec.Command("go", "build", "-o", bin, "../goplsmcp").CombinedOutput(); err != nil {
		t.Fatalf("building goplsmcp: %v\n%s", err, out)
	}
	// A bound for a harness that hangs, not a timing: every section runs,
	// and on a loaded machine (load 20 on two cores) they took over 3
	// minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	// Table 11 on a copy of the fixture, with the smallest hog: it
	// proves the harness, not the load.
	busyRepo := filepath.Join(t.TempDir(), "busy")
	if err := os.CopyFS(busyRepo, os.DirFS("../../testdata/bench")); err != nil {
		t.Fatal(err)
	}
	err = run(ctx, []string{"-mode", "smoke", "-goplsmcp", bin, "-gopls", gopls, "-fixture", "../../testdata/bench", "-goroot", "off",
		"-busy-repo", busyRepo, "-busy-refs", "core/errors.go:Wrap", "-busy-n", "1", "-busy-hog", "1"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	report := stdout.String()
	for _, heading := range []string{
		"### Targets", "### 1. Bridge overhead", "### 2. Against gopls mcp", "### 3. Cold start",
		"### 4. Edit loop", "### 4. Edit loop: an edit that breaks other packages", "### 5. Memory and idle",
		"### 6. Tokens", "### 6. Tokens: every tool's answer, both channels", "### 7. Concurrency",
		"### 8. Declaration source and package graph", "### 11. First answer on a busy machine",
		"### 13. One gopls for the editor and the agents",
	} {
		if !strings.Contains(report, heading+"\n") {
			t.Errorf("the report has no %q section:\n%s", heading, report)
		}
	}
	// Both servers must find every use of core.Wrap, warm (addressed by
	// symbol and by position), cold, and cold on a busy machine.
	want := "201 vs 201 references"
	if n := strings.Count(report, want); n != 4 {
		t.Errorf("the report says %q %d times, want 4 (two warm, one cold, one busy):\n%s", want, n, report)
	}
	// On the busy machine, both servers answer both questions the first
	// time.
	busyRow := regexp.MustCompile(`(?m)^\| busy \| [^|]* \| 1 \|(?:[^|]*\|){5} 0 \(0\) / 0 \(0\) \| 0 / 0 \| 0 / 0 \|`)
	if n := len(busyRow.FindAllString(report, -1)); n != 2 {
		t.Errorf("table 11 has %d rows without an error, want 2 (references, diagnostics):\n%s", n, report)
	}
	for _, bad := range []string{"error answer", "**differ**", "no question", "an answer without both channels"} {
		if strings.Contains(report, bad) {
			t.Errorf("the report contains %q:\n%s", bad, report)
		}
	}
	// Every edit's diagnostics are right, whichever way they were asked.
	editRow := regexp.MustCompile(`(?m)^\| (direct LSP|goplsmcp)[^|]*\|[^|]*\|[^|]*\|[^|]*\| (\d+)/(\d+) \|`)
	rows := editRow.FindAllStringSubmatch(report, -1)
	if len(rows) < 2 {
		t.Errorf("the edit loop table has %d measured rows, want at least 2:\n%s", len(rows), report)
	}
	for _, r := range rows {
		if r[2] != r[3] {
			t.Errorf("edit loop, %s: %s of %s answers correct", r[1], r[2], r[3])
		}
	}
	// The edit that breaks other packages: every answer names the broken
	// importers (or none, once undone), overlay and saved, and gopls
	// published them to the direct client every time.
	crossRow := regexp.MustCompile(`(?m)^\| fixture \| [^|]* \| ((?:direct LSP|goplsmcp) (?:overlay|saved)[^|]*) \| (\d+) \|[^|]*\|[^|]*\|[^|]*\| (\d+)/(\d+) \|`)
	crossRows := crossRow.FindAllStringSubmatch(report, -1)
	if len(crossRows) < 4 {
		t.Errorf("the cross-package edit table has %d measured rows on the fixture, want at least 4 (overlay and saved, both sides):\n%s", len(crossRows), report)
	}
	for _, r := range crossRows {
		if r[3] != r[4] || r[3] != r[2] || r[2] == "0" {
			t.Errorf("cross-package edit, %s: %s of %s answers right, of %s samples", r[1], r[3], r[4], r[2])
		}
	}
	// Every tool listed has its answer sized, both channels, on the
	// fixture.
	answerRow := regexp.MustCompile(`(?m)^\| fixture \| (go_\w+) \| [^|]+ \| (\d+ B|[\d.]+ KiB) \| (\d+ B|[\d.]+ KiB) \|`)
	sized := map[string]bool{}
	for _, m := range answerRow.FindAllStringSubmatch(report, -1) {
		sized[m[1]] = true
	}
	listed := regexp.MustCompile(`tools/list \(goplsmcp (\d+) tools`).FindStringSubmatch(report)
	if listed == nil {
		t.Fatalf("the report does not say how many tools goplsmcp lists:\n%s", report)
	}
	if n, _ := strconv.Atoi(listed[1]); len(sized) != n || n == 0 {
		t.Errorf("table 6 sizes the answers of %d tools on the fixture, goplsmcp lists %s:\n%s", len(sized), listed[1], report)
	}
}

// TestGorootQuestions resolves the questions and the cross-package edit
// that make bench asks of $(go env GOROOT)/src, which go test does not
// run: the text they look for must still be in this Go's tree. Nothing is
// written.
func TestGorootQuestions(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	ws := gorootWorkspace(filepath.Join(strings.TrimSpace(string(out)), "src"))
	set := gorootQuestions()
	if diff := cmp.Diff(fixtureQuestions().tools(), set.tools()); diff != "" {
		t.Errorf("the fixture and GOROOT/src have questions for different tools (-fixture +GOROOT):\n%s", diff)
	}
	for _, q := range append(slices.Collect(maps.Values(set.byTool)), set.extra...) {
		if _, err := q.ready(ws); err != nil {
			t.Error(err)
		}
	}
	e, err := gorootCrossEdit(ws)
	if err != nil {
		t.Fatal(err)
	}
	if e.broken == e.orig || len(e.importers) == 0 {
		t.Errorf("the cross-package edit of %s changes nothing or breaks no importer", e.file)
	}
}

// TestDiagCount checks the harness's reading of go_diagnostics answers,
// the structured content: every file's listed diagnostics and those
// beyond the limit.
func TestDiagCount(t *testing.T) {
	for _, tc := range []struct {
		name, structured string
		want             int
	}{
		{"none", `{"files":{}}`, 0},
		{"none in a buffer", `{"uri":"file:///x.go","files":{}}`, 0},
		{"one file", `{"files":{"a.go":{"at":["1:2: m","1:3: warning: m"]}}}`, 2},
		{"two files", `{"uri":"file:///a.go","files":{"a.go":{"at":["1:2: m"]},"b.go":{"at":["1:2: hint: m","1:3: info: m"],"fixes":["1:2: f"]}}}`, 3},
		{"cut", `{"total":9,"truncated":true,"files":{"a.go":{"at":["1:2: m"],"more":8}}}`, 9},
	} {
		got, ok := diagCount([]byte(tc.structured), "")
		if !ok || got != tc.want {
			t.Errorf("%s: diagCount = %d, %v; want %d, true\n%s", tc.name, got, ok, tc.want, tc.structured)
		}
	}
	if n, ok := diagCount([]byte(`{"files":{"a.go":{"at":["1:2: m"]},"b.go":{"at":["1:2: m","1:3: m"]}}}`), "b.go"); !ok || n != 2 {
		t.Errorf("diagCount of b.go alone = %d, %v; want 2, true", n, ok)
	}
	if _, ok := diagCount([]byte(`{"files":[]}`), ""); ok {
		t.Error("diagCount read files as a list")
	}
}

// TestHogStops checks that the CPU hog of table 11 works and ends by
// itself both ways: when its stdin closes, and when its time is up.
func TestHogStops(t *testing.T) {
	h, err := startHog(1, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		// It burns CPU: wait for its first tick.
		deadline := time.Now().Add(30 * time.Second)
		tick := time.NewTicker(20 * time.Millisecond) // its CPU time sends no signal
		for ticksOr0(h.cmd.Process.Pid) == 0 && time.Now().Before(deadline) {
			<-tick.C
		}
		tick.Stop()
		if ticksOr0(h.cmd.Process.Pid) == 0 {
			t.Error("the hog used no CPU in 30 s")
		}
	}
	h.stopAfter(30 * time.Second)
	if h.running() || h.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("the hog did not exit by itself when its stdin closed: %v", h.cmd.ProcessState)
	}

	h, err = startHog(1, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer h.stop()
	select {
	case <-h.exited:
		if code := h.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("the hog exited with %d at the end of its time, want 0", code)
		}
	case <-time.After(30 * time.Second):
		t.Error("the hog given 1 s was still running after 30 s")
	}
}

// TestBusyFlags checks the pairing of -busy-repo and -busy-refs.
func TestBusyFlags(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseFlags([]string{"-busy-repo", dir, "-busy-refs", "a/b.go:Sym", "-busy-repo", dir, "-busy-refs", "c.go:T"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range cfg.busyRepos {
		got = append(got, r.refs.file+" "+r.refs.symbol)
	}
	if diff := cmp.Diff([]string{"a/b.go Sym", "c.go T"}, got); diff != "" {
		t.Errorf("busy repos (-want +got):\n%s", diff)
	}
	for _, args := range [][]string{
		{"-busy-repo", dir},
		{"-busy-refs", "a.go:T"},
		{"-busy-repo", dir, "-busy-refs", "a.go"},
		{"-busy-repo", dir, "-busy-refs", "a.go:"},
		{"-busy-repo", dir, "-busy-refs", "a.go:T", "-busy-n", "0"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted it", args)
		}
	}
}
