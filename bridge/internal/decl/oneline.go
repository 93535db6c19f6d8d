package decl

import (
	"bytes"
	"go/ast"
	"go/printer"
	"strings"
	"unicode/utf8"
)

// oneLine prints node as Go source on a single line: line breaks become
// "; " between fields and statements and vanish inside parentheses, and
// alignment padding is dropped.
func (g *File) oneLine(node ast.Node) string {
	// The printer prints the comments of fields (and only those), which
	// have no place on one line: they are hidden while printing, and so
	// are tags unless wanted.
	type saved struct {
		f        *ast.Field
		doc, com *ast.CommentGroup
		tag      *ast.BasicLit
	}
	var hidden []saved
	ast.Inspect(node, func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok && (f.Doc != nil || f.Comment != nil || f.Tag != nil && !g.tags) {
			hidden = append(hidden, saved{f, f.Doc, f.Comment, f.Tag})
			f.Doc, f.Comment = nil, nil
			if !g.tags {
				f.Tag = nil
			}
		}
		return true
	})
	defer func() {
		for _, h := range hidden {
			h.f.Doc, h.f.Comment, h.f.Tag = h.doc, h.com, h.tag
		}
	}()
	var buf bytes.Buffer
	cfg := printer.Config{Mode: printer.RawFormat, Tabwidth: 1}
	if err := cfg.Fprint(&buf, g.fset, node); err != nil {
		return ""
	}
	text := strings.Map(func(r rune) rune {
		switch r {
		case '\f':
			return '\n'
		case '\v':
			return '\t'
		}
		return r
	}, buf.String())
	var out strings.Builder
	prev := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(collapseTabs(line))
		if line == "" {
			continue
		}
		switch {
		case prev == "":
		case strings.HasPrefix(line, ")") || strings.HasPrefix(line, "]"):
			s := strings.TrimSuffix(out.String(), ",")
			out.Reset()
			out.WriteString(s)
		case strings.HasSuffix(prev, "(") || strings.HasSuffix(prev, "["):
		case strings.HasSuffix(prev, "{") || strings.HasSuffix(prev, ",") || strings.HasPrefix(line, "}"):
			out.WriteString(" ")
		default:
			out.WriteString("; ")
		}
		out.WriteString(line)
		prev = line
	}
	return out.String()
}

// collapseTabs turns each run of tabs, the printer's alignment cells, into
// one space.
func collapseTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	tab := false
	for _, r := range s {
		if r == '\t' {
			tab = true
			continue
		}
		if tab {
			b.WriteByte(' ')
			tab = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cut shortens s to about n bytes on a rune boundary, marking the cut.
// It is not render.ClipN, which counts runes and replaces control
// characters: a signature is Go source, bounded in bytes, whose raw
// string literals keep what they hold.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
