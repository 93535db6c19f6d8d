package edit

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiffGolden(t *testing.T) {
	for _, tc := range []struct {
		name, before, after, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"change one line", "a\nb\nc\n", "a\nB\nc\n",
			"--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n-b\n+B\n c\n"},
		{"change at the end takes context before", "a\nb\nc\n", "a\nb\nC\n",
			"--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n"},
		{"insert at start", "x\n", "new\nx\n",
			"--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n+new\n x\n"},
		{"insert in the middle", "a\nb\n", "a\nnew\nb\n",
			"--- a/f\n+++ b/f\n@@ -2 +2,2 @@\n+new\n b\n"},
		{"new file", "", "a\nb\n",
			"--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"delete all", "a\n", "",
			"--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n"},
		{"no newline at end", "a\nb", "a\nc",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\nY\n12\n",
			"--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n-2\n+X\n 3\n@@ -11,2 +11,2 @@\n-11\n+Y\n 12\n"},
		{"changes one line apart share a hunk", "1\n2\n3\n4\n5\n", "1\nX\n3\nY\n5\n",
			"--- a/f\n+++ b/f\n@@ -2,4 +2,4 @@\n-2\n+X\n 3\n-4\n+Y\n 5\n"},
		{"changes two lines apart do not", "1\n2\n3\n4\n5\n6\n", "1\nX\n3\n4\nY\n6\n",
			"--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n-2\n+X\n 3\n@@ -5,2 +5,2 @@\n-5\n+Y\n 6\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, UnifiedDiff("a/f", "b/f", tc.before, tc.after)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnifiedDiffRandom checks, on random texts, that the diff turns
// before into after (applied by this test, by patch(1) and by git apply,
// which wants context after each hunk not at the end of the file), and
// that the edit script is as short as a longest common subsequence
// allows.
func TestUnifiedDiffRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a\n", "b\n", "c\n", "d\n", "e\n"}
	gen := func() string {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		s := b.String()
		if s != "" && rng.IntN(4) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	patch, _ := exec.LookPath("patch")
	git, _ := exec.LookPath("git")
	for i := range 2000 {
		before, after := gen(), gen()
		d := UnifiedDiff("a/f", "b/f", before, after)
		if got := applyUnified(t, before, d); got != after {
			t.Fatalf("case %d: applying the diff of %q → %q gave %q\n%s", i, before, after, got, d)
		}
		ops := diffLines(splitLines(before), splitLines(after))
		edits := 0
		for _, op := range ops {
			if op.kind != ' ' {
				edits++
			}
		}
		a, b := splitLines(before), splitLines(after)
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("case %d: %d edits, want the minimum %d", i, edits, want)
		}
		if patch != "" && i < 100 && d != "" {
			dir := t.TempDir()
			f := filepath.Join(dir, "f")
			os.WriteFile(f, []byte(before), 0o644)
			cmd := exec.Command(patch, "--quiet", "--posix", f)
			cmd.Stdin = strings.NewReader(d)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("case %d: patch: %v\n%s\n%s", i, err, out, d)
			}
			got, _ := os.ReadFile(f)
			if string(got) != after {
				t.Fatalf("case %d: patch gave %q, want %q\n%s", i, got, after, d)
			}
		}
		if git != "" && i < 100 && d != "" {
			dir := t.TempDir()
			f := filepath.Join(dir, "f")
			os.WriteFile(f, []byte(before), 0o644)
			cmd := exec.Command(git, "apply", "--whitespace=nowarn", "-")
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(d)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("case %d: git apply: %v\n%s\n%s", i, err, out, d)
			}
			got, _ := os.ReadFile(f)
			if string(got) != after {
				t.Fatalf("case %d: git apply gave %q, want %q\n%s", i, got, after, d)
			}
		}
	}
}

// TestDiffLarge checks that a diff past the edit bound is still correct.
func TestDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := range 5000 {
		a.WriteString(strconv.Itoa(i) + "\n")
		b.WriteString(strconv.Itoa(i*7%5000) + "\n")
	}
	d := UnifiedDiff("a/f", "b/f", a.String(), b.String())
	if got := applyUnified(t, a.String(), d); got != b.String() {
		t.Fatal("the diff of a large change does not apply")
	}
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// applyUnified applies a unified diff to text, checking every context
// and deleted line against it.
func applyUnified(t *testing.T, text, diff string) string {
	t.Helper()
	if diff == "" {
		return text
	}
	old := splitLines(text)
	var out []string
	pos := 0
	lines := strings.SplitAfter(diff, "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "@@ ") {
			f := strings.Fields(l)
			start, _ := strconv.Atoi(strings.Split(strings.TrimPrefix(f[1], "-"), ",")[0])
			if strings.HasSuffix(f[1], ",0") {
				start++ // an empty range names the line before
			}
			for pos < start-1 {
				out = append(out, old[pos])
				pos++
			}
			continue
		}
		body := l[1:]
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`) {
			body = strings.TrimSuffix(body, "\n")
			i++
		}
		switch l[0] {
		case ' ', '-':
			if pos >= len(old) || old[pos] != body {
				t.Fatalf("diff line %q does not match the text at line %d", l, pos)
			}
			if l[0] == ' ' {
				out = append(out, body)
			}
			pos++
		case '+':
			out = append(out, body)
		default:
			t.Fatalf("unexpected diff line %q", l)
		}
	}
	out = append(out, old[pos:]...)
	return strings.Join(out, "")
}
