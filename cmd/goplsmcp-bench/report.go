package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A table is one section's results, rendered as a markdown table.
type table struct {
	num    int
	title  string
	intro  string
	header []string
	rows   [][]string
	notes  []string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) note(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

// A verdict is one target of the issue and what was measured for it.
type verdict struct {
	target   string
	measured string
	met      string // "yes", "**no**" or "n/a"
}

// A report collects the run's tables and verdicts.
type report struct {
	machine []string
	tables  []*table
	verdict []verdict
	skipped []string
}

func (r *report) judge(target, measured string, ok bool) {
	r.verdict = append(r.verdict, verdict{target, measured, check(ok)})
}

func (r *report) unavailable(target, why string) {
	r.verdict = append(r.verdict, verdict{target, why, "n/a"})
}

func (r *report) write(w io.Writer, command string) {
	fmt.Fprintf(w, "## Results\n\n")
	fmt.Fprintf(w, "Command: `%s`\n\n", command)
	for _, m := range r.machine {
		fmt.Fprintf(w, "- %s\n", m)
	}
	fmt.Fprintln(w)
	// Verdicts in section order; each starts with its section's number.
	slices.SortStableFunc(r.verdict, func(a, b verdict) int { return cmp.Compare(leadingNumber(a.target), leadingNumber(b.target)) })
	if len(r.verdict) > 0 {
		fmt.Fprintf(w, "### Targets\n\n| target | measured | met |\n|---|---|---|\n")
		for _, v := range r.verdict {
			fmt.Fprintf(w, "| %s | %s | %s |\n", cell(v.target), cell(v.measured), v.met)
		}
		fmt.Fprintln(w)
	}
	for _, t := range r.tables {
		fmt.Fprintf(w, "### %s\n\n", t.title)
		if t.intro != "" {
			fmt.Fprintf(w, "%s\n\n", t.intro)
		}
		if len(t.rows) > 0 {
			fmt.Fprintf(w, "| %s |\n|", strings.Join(t.header, " | "))
			for range t.header {
				fmt.Fprint(w, "---|")
			}
			fmt.Fprintln(w)
			for _, row := range t.rows {
				cells := make([]string, len(row))
				for i, c := range row {
					cells[i] = cell(c)
				}
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			}
			fmt.Fprintln(w)
		}
		for _, n := range t.notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
		if len(t.notes) > 0 {
			fmt.Fprintln(w)
		}
	}
	for _, s := range r.skipped {
		fmt.Fprintf(w, "- skipped: %s\n", s)
	}
}

func leadingNumber(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// cell makes s safe inside a markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
