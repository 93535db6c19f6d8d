package edit

import (
	"fmt"
	"strings"
)

// A hunk carries one unchanged line after its changes, and none before
// them unless it ends at the end of the file: the fewest with which git
// apply (and patch) take it without --unidiff-zero. git apply reads a
// hunk with no line after its changes as one that must end the file, and
// one starting at line 1 as one that must start it; any other hunk may
// do without lines before. Every line of context is tokens the model
// reads for nothing.
const diffContext = 1

// maxDiffEdits bounds the work of the line diff: past this many inserted
// and deleted lines between the first and last change, the region is
// shown as replaced wholesale, which is still a correct diff, only not a
// minimal one.
const maxDiffEdits = 1000

// UnifiedDiff returns the unified diff that turns before into after, with
// the file names given for the two headers (such as "a/x.go", "b/x.go",
// or "/dev/null" for a file created). It is "" when the texts are equal.
func UnifiedDiff(oldName, newName, before, after string) string {
	if before == after {
		return ""
	}
	ops := diffLines(splitLines(before), splitLines(after))
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks(ops) {
		writeHunk(&b, ops[h.from:h.to])
	}
	return b.String()
}

// splitLines splits text into lines, each with its line end; the last
// line has none if the text does not end with one.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// A diffOp is one line of the edit script: kept, deleted or inserted.
type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
	// oldLine and newLine are the 0-based numbers of the line before it
	// in each text; they place hunks.
	oldLine, newLine int
}

// diffLines returns an edit script from a to b: the common prefix and
// suffix kept, and between them a shortest script found with Myers's
// algorithm.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	i, j := 0, 0
	emit := func(kind byte, line string) {
		ops = append(ops, diffOp{kind: kind, line: line, oldLine: i, newLine: j})
		switch kind {
		case ' ':
			i++
			j++
		case '-':
			i++
		case '+':
			j++
		}
	}
	for k := 0; k < pre; k++ {
		emit(' ', a[k])
	}
	midA, midB := a[pre:len(a)-suf], b[pre:len(b)-suf]
	script, ok := myers(midA, midB)
	if !ok {
		script = nil
		for range midA {
			script = append(script, '-')
		}
		for range midB {
			script = append(script, '+')
		}
	}
	x, y := 0, 0
	for _, k := range script {
		switch k {
		case ' ':
			emit(' ', midA[x])
			x++
			y++
		case '-':
			emit('-', midA[x])
			x++
		case '+':
			emit('+', midB[y])
			y++
		}
	}
	for k := len(a) - suf; k < len(a); k++ {
		emit(' ', a[k])
	}
	return ops
}

// myers returns the shortest edit script from a to b as a sequence of
// ' ', '-' and '+', or false if it needs more than maxDiffEdits edits.
func myers(a, b []string) ([]byte, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		var s []byte
		for range a {
			s = append(s, '-')
		}
		for range b {
			s = append(s, '+')
		}
		return s, true
	}
	maxD := min(n+m, maxDiffEdits)
	// v[k] is the furthest x on diagonal k (x-y = k); trace keeps a copy
	// of v for each d, holding only the diagonals -d..d it can reach.
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		snap := make([]int, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				snap[k+d] = x
				trace = append(trace, snap)
				return backtrack(trace, n, m), true
			}
			snap[k+d] = x
		}
		trace = append(trace, snap)
	}
	return nil, false
}

// backtrack walks the trace from the end to build the script.
func backtrack(trace [][]int, n, m int) []byte {
	var rev []byte
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // diagonals -(d-1)..d-1
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		insert := k == -d || (k != d && at(k-1) < at(k+1))
		pk := k - 1
		if insert {
			pk = k + 1
		}
		px := at(pk)
		py := px - pk
		// The point just after the edit, from which the snake ran.
		sx, sy := px+1, py
		if insert {
			sx, sy = px, py+1
		}
		for x > sx && y > sy {
			rev = append(rev, ' ')
			x--
			y--
		}
		if insert {
			rev = append(rev, '+')
		} else {
			rev = append(rev, '-')
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		rev = append(rev, ' ')
		x--
		y--
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// A hunk is a range of the edit script shown together.
type hunk struct{ from, to int }

// hunks groups the changes of ops with their context (see diffContext),
// a change and the next in one hunk when no more than diffContext lines
// lie between them.
func hunks(ops []diffOp) []hunk {
	var out []hunk
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == ' ' {
			continue
		}
		// Extend while the next change is close enough to share context.
		end := i
		for j := i + 1; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > diffContext {
				break
			}
		}
		from, to := i, min(len(ops), end+1+diffContext)
		if to == end+1 {
			// Nothing follows: the context goes before.
			from = max(0, i-diffContext)
		}
		if n := len(out); n > 0 && from <= out[n-1].to {
			out[n-1].to = to
		} else {
			out = append(out, hunk{from: from, to: to})
		}
		i = end
	}
	return out
}

func writeHunk(b *strings.Builder, ops []diffOp) {
	oldN, newN := 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			oldN++
		}
		if op.kind != '-' {
			newN++
		}
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(ops[0].oldLine, oldN), hunkRange(ops[0].newLine, newN))
	for _, op := range ops {
		b.WriteByte(op.kind)
		b.WriteString(op.line)
		if !strings.HasSuffix(op.line, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange renders a hunk's start and length as unified diffs do: the
// start is 1-based, or, for an empty range, the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
