package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// TestSoakPeriods checks the soak's arithmetic: calls fall in the period
// of their answer, failures count apart from the latencies, and the
// verdict compares gopls one period in with its largest in the last.
func TestSoakPeriods(t *testing.T) {
	d := 60 * time.Second
	rs := []soakResult{
		{at: time.Second, dur: 10 * time.Millisecond},
		{at: 2 * time.Second, dur: 30 * time.Millisecond},
		{at: 3 * time.Second, fail: true},
		{at: 59 * time.Second, dur: 5 * time.Millisecond},
		// The last call may be answered after the end.
		{at: 61 * time.Second, dur: 7 * time.Millisecond},
	}
	got := periods(rs, d, soakPeriods)
	want := make([]soakPeriod, soakPeriods)
	for i := range want {
		want[i].from, want[i].to = time.Duration(i)*10*time.Second, time.Duration(i+1)*10*time.Second
	}
	want[0].calls, want[0].fails, want[0].p50, want[0].p99 = 3, 1, 10*time.Millisecond, 30*time.Millisecond
	want[5].calls, want[5].p50, want[5].p99 = 2, 5*time.Millisecond, 7*time.Millisecond
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(soakPeriod{})); diff != "" {
		t.Errorf("periods (-want +got):\n%s", diff)
	}

	mem := []soakMem{{at: 0, gopls: 1, label: "start"}}
	for i := 1; i <= soakRSSSamples; i++ {
		mem = append(mem, soakMem{at: d * time.Duration(i) / soakRSSSamples, gopls: int64(100 + i), peer: int64(200 - i)})
	}
	// Samples after the calls stop are not the soak's.
	mem = append(mem, soakMem{at: d + time.Minute, gopls: 999, peer: 999, label: "after"})
	early, late, peerLate := soakVerdict(mem, d)
	if diff := cmp.Diff([3]int64{102, 112, 190}, [3]int64{early, late, peerLate}); diff != "" {
		t.Errorf("verdict (early, late, peer late) (-want +got):\n%s", diff)
	}
}

// TestSoakWorkload checks that the workload asks about files gopls loads
// here, each with a name it declares, and that the five kinds of call
// take turns, the same ones on both sides.
func TestSoakWorkload(t *testing.T) {
	files, err := soakFiles("../../testdata/bench")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("%d files to ask about in the fixture, want at least 10", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.path, "_test.go") || !regexp.MustCompile(`(?m)^(func|type) `+f.name+`\b`).Match(data) {
			t.Errorf("%s: a test file, or %s not declared in it", f.path, f.name)
		}
		if !strings.HasPrefix(f.pkg, fixtureModule) {
			t.Errorf("%s: package %q not in module %s", f.path, f.pkg, fixtureModule)
		}
	}
	var tools []string
	for k := range 10 {
		c := soakCallAt(files, k)
		tools = append(tools, c.tool)
		if c.ours["file"] != c.peer["file"] || c.ours["query"] != c.peer["query"] {
			t.Errorf("call %d asks the two sides different things: %v and %v", k, c.ours, c.peer)
		}
	}
	five := []string{"go_file_context", "go_diagnostics", "go_search", "go_symbol_references", "go_package_api"}
	if diff := cmp.Diff(append(five, five...), tools); diff != "" {
		t.Errorf("the workload's tools (-want +got):\n%s", diff)
	}
	if !goodOSArch("server.go") || !goodOSArch("exec_linux.go") || goodOSArch("exec_windows.go") || goodOSArch("asm_arm64.go") {
		t.Error("goodOSArch keeps or drops the wrong files")
	}
}

// TestSoakShort runs the soak for seconds on the fixture: both sides
// answer every call, a session is replaced, and the report has both
// tables, every period and the memory after the sessions close.
func TestSoakShort(t *testing.T) {
	gopls, err := filepath.Abs("../../bin/gopls")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gopls); err != nil {
		t.Fatalf("%s is missing: run make build first", gopls)
	}
	bin := filepath.Join(t.TempDir(), "goplsmcp")
	if out, err := exec.Command("go", "build", "-o", bin, "../goplsmcp").CombinedOutput(); err != nil {
		t.Fatalf("building goplsmcp: %v\n%s", err, out)
	}
	t.Setenv("GOPLSMCP_RUNTIME_DIR", t.TempDir())
	// A bound for a soak that hangs, above the smoke plan's bound on one
	// call (two minutes).
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	prof := t.TempDir()
	err = run(ctx, []string{"-mode", "smoke", "-goplsmcp", bin, "-gopls", gopls, "-fixture", "../../testdata/bench", "-goroot", "off",
		"-sections", "soak", "-soak-duration", "6s", "-soak-churn", "1s", "-soak-sessions", "2", "-soak-pprof", prof}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	report := stdout.String()
	// Our gopls serves its debug pages (gopls mcp has none): a
	// live heap profile and the session page at the first sample.
	if fi, err := os.Stat(filepath.Join(prof, "ours-heap-00.pb.gz")); err != nil || fi.Size() == 0 {
		t.Errorf("no heap profile of our gopls at the first sample: %v", err)
	}
	if pages, err := os.ReadFile(filepath.Join(prof, "ours-pages-00.html")); err != nil || !strings.Contains(string(pages), "=== /session/") {
		t.Errorf("our gopls's debug pages at the first sample lack its session (%v)", err)
	}
	for _, heading := range []string{"### 12. Soak: calls\n", "### 12. Soak: memory\n", "| all sessions closed, gopls quiet |"} {
		if !strings.Contains(report, heading) {
			t.Errorf("the report has no %q:\n%s", heading, report)
		}
	}
	// Every period is reported, none with a failure, and both sides
	// answered calls: on a loaded machine a period of a second may have
	// none.
	row := regexp.MustCompile(`(?m)^\| [\d.]+ s–[\d.]+ s \| (\d+) \| 0 \|[^|]*\|[^|]*\| (\d+) \| 0 \|`)
	rows := row.FindAllStringSubmatch(report, -1)
	if len(rows) != soakPeriods {
		t.Errorf("%d periods without a failure, want %d:\n%s", len(rows), soakPeriods, report)
	}
	var ours, peer int
	for _, r := range rows {
		o, _ := strconv.Atoi(r[1])
		p, _ := strconv.Atoi(r[2])
		ours, peer = ours+o, peer+p
	}
	if ours == 0 || ours != peer {
		t.Errorf("goplsmcp answered %d calls and gopls mcp %d, want the same, more than 0:\n%s", ours, peer, report)
	}
	// Sessions were replaced: the last sample during the calls counts
	// some.
	replaced := regexp.MustCompile(`(?m)^\| 6\.0 s \| ([1-9]\d*) \|`)
	if !replaced.MatchString(report) {
		t.Errorf("no session replaced by the end:\n%s", report)
	}
	// Both goplses loaded the fixture by the last sample: each has CPU.
	cpu := regexp.MustCompile(`(?m)^\| 6\.0 s \|.*\| \d+ s \| \d+ s \|$`)
	if !cpu.MatchString(report) {
		t.Errorf("no CPU of either gopls in the last sample:\n%s", report)
	}
}

// TestLifeTicks checks that a process's CPU counts that of the children
// it has waited for, as the daemon's does for the goplses it replaced.
func TestLifeTicks(t *testing.T) {
	_, before, err := lifeTicks(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	// A child that spins until it has used a few ticks of CPU.
	cmd := exec.Command(os.Args[0], "-test.run=^TestLifeTicksChild$")
	cmd.Env = append(os.Environ(), "BENCH_SPIN=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	_, after, err := lifeTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 5 {
		t.Errorf("reaped children's CPU went from %d to %d ticks, want 5 more at least", before, after)
	}
}

// TestLifeTicksChild is TestLifeTicks's child: it spins until its own
// CPU time reaches 8 ticks (80 ms).
func TestLifeTicksChild(t *testing.T) {
	if os.Getenv("BENCH_SPIN") == "" {
		t.Skip("TestLifeTicks's child")
	}
	for {
		self, _, err := lifeTicks(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if self >= 8 {
			return
		}
	}
}

// TestCountRenewals checks that the soak counts the renewals and the
// replacements in the daemon's log by lspclient's own messages, and says
// when there is no log.
func TestCountRenewals(t *testing.T) {
	rt := t.TempDir()
	if got := countLogged(rt, lspclient.RenewalMessage); got != -1 {
		t.Errorf("countLogged with no log = %d, want -1", got)
	}
	line := fmt.Sprintf("time=x level=INFO msg=%q packages=3\n", lspclient.RenewalMessage)
	recycled := fmt.Sprintf("time=x level=INFO msg=%q pid=1 rss_mib=2600\n", lspclient.RecycleMessage)
	log := line + "time=x level=INFO msg=\"started gopls\"\n" + recycled + line
	if err := os.WriteFile(filepath.Join(rt, "key.log"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := countLogged(rt, lspclient.RenewalMessage); got != 2 {
		t.Errorf("countLogged(renewals) = %d, want 2", got)
	}
	if got := countLogged(rt, lspclient.RecycleMessage); got != 1 {
		t.Errorf("countLogged(replacements) = %d, want 1", got)
	}
}
