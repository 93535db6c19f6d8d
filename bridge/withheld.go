package bridge

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// What gopls writes about a declaration — hover, signature help,
// completion details and docs, symbol listings — carries the bytes of the
// file the declaration is in. gopls reads files the read gate refuses (a
// committed directory link out of the root, a replace or go.work use of a
// directory outside), so before such text is shown, the tools ask where
// the declaration lives and withhold the text when its file does not pass
// the gate (place.Gate.Shows).

// withheldNote says, in the answer, why a declaration's text is missing.
const withheldNote = "the declaration is outside the workspace root (reached through a directory link, a replace or a go.work use), so its text is withheld"

// declaredOutside reports whether the identifier at pos is declared in a
// file whose text may not be shown, or, with typ, whether its type is.
// A package name counts as declared in its package's files, not in the
// import that names it. gopls finding nothing to go to is not outside.
func (b *Bridge) declaredOutside(ctx context.Context, pos map[string]any, typ bool) (bool, error) {
	outside, _, err := b.declared(ctx, pos, typ)
	return outside, err
}

// declared is declaredOutside that also says whether gopls found any
// declaration at all.
func (b *Bridge) declared(ctx context.Context, pos map[string]any, typ bool) (outside, found bool, err error) {
	methods := []string{"textDocument/definition"}
	if typ {
		methods = append(methods, "textDocument/typeDefinition")
	}
	for _, method := range methods {
		locs, err := b.locations(ctx, method, pos)
		if err != nil {
			return false, found, err
		}
		for _, loc := range locs {
			found = true
			outside, err := b.locationOutside(ctx, loc)
			if outside || err != nil {
				return outside, found, err
			}
		}
	}
	return false, found, nil
}

// locationOutside reports whether the declaration at loc may not be
// shown, following an import spec to the package it imports.
func (b *Bridge) locationOutside(ctx context.Context, loc protocol.Location) (bool, error) {
	path, err := lspclient.URIPath(string(loc.URI))
	if err != nil {
		return true, nil
	}
	if !b.reads.Shows(path) {
		return true, nil
	}
	// The definition of a package name is its import spec; the package
	// is where the definition of the import path leads.
	line, _ := b.buffers.LineCache().Untrimmed(string(loc.URI), int(loc.Range.Start.Line))
	quote := importPathColumn(line, int(loc.Range.Start.Character))
	if quote < 0 {
		return false, nil
	}
	at := map[string]any{
		"textDocument": map[string]any{"uri": string(loc.URI)},
		"position":     map[string]any{"line": loc.Range.Start.Line, "character": quote + 1},
	}
	pkgs, err := b.locations(ctx, "textDocument/definition", at)
	if err != nil {
		return false, err
	}
	for _, pkg := range pkgs {
		p, err := lspclient.URIPath(string(pkg.URI))
		if err != nil || !b.reads.Shows(p) {
			return true, nil
		}
	}
	return false, nil
}

// importPathColumn returns the UTF-16 column of the opening quote of the
// import path on an import spec line, where the spec starts at column
// from (its name, or the path itself); -1 if line is no import spec.
func importPathColumn(line string, from int) int {
	off := iplace.ByteOffset(line, from)
	if off < 0 || off > len(line) {
		return -1
	}
	rest := line[off:]
	// An optional name (or . or _), then the quoted path.
	afterName := strings.TrimLeftFunc(rest, func(r rune) bool { return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) })
	path := strings.TrimLeft(afterName, " \t")
	if path == "" || (path[0] != '"' && path[0] != '`') {
		return -1
	}
	return iplace.UTF16Col(line, len(line)-len(path))
}

// locations asks gopls method (definition, typeDefinition) at pos. An
// error answer from gopls is no location.
func (b *Bridge) locations(ctx context.Context, method string, pos map[string]any) ([]protocol.Location, error) {
	var locs []protocol.Location
	err := b.client.Call(ctx, method, pos, &locs)
	var re *lspclient.ResponseError
	if errors.As(err, &re) {
		return nil, nil
	}
	if err != nil {
		return nil, ask.Error(err)
	}
	return locs, nil
}

// calleeOutside reports whether the function whose signature help gopls
// gave at line:char of src (label, as "Name(params) results") is declared
// outside what may be shown: the nearest occurrence of its name before
// the position, within a few lines, is asked where it is declared. When
// the name cannot be found there the answer is outside: withholding a
// signature costs less than showing one that should not be.
func (b *Bridge) calleeOutside(ctx context.Context, uri string, lines func(int) string, line, char int, label string) (bool, error) {
	name, _, ok := strings.Cut(label, "(")
	name = strings.TrimSpace(name)
	if i := strings.LastIndexAny(name, ". "); i >= 0 {
		name = name[i+1:]
	}
	if !ok || name == "" || name == "func" {
		// A function value or literal: its declaration is its type's.
		return false, nil
	}
	for l := line; l >= 0 && l > line-calleeLines; l-- {
		text := lines(l)
		if l == line {
			text = text[:iplace.ByteOffset(text, char)]
		}
		cols := iplace.IdentColumns(text, name)
		if len(cols) == 0 {
			continue
		}
		at := map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     map[string]any{"line": l, "character": cols[len(cols)-1]},
		}
		return b.declaredOutside(ctx, at, false)
	}
	return true, nil
}

// calleeLines is how far back from the position the callee's name is
// looked for: a call's arguments rarely span more.
const calleeLines = 30

// A selector says whose members the completions after "operand." are.
type selector int

const (
	selectorNone       selector = iota // no selector, or its operand may be shown
	selectorOutside                    // the operand or its type may not be shown
	selectorUnresolved                 // the operand is declared nowhere: a package not imported yet
)

// selectorAt says whose members the completions at line:char of a file
// are: when the position follows "operand." (and a partly typed name),
// the operand's declaration and that of its type are asked.
func (b *Bridge) selectorAt(ctx context.Context, uri, text string, line, char int) (selector, error) {
	before := text[:iplace.ByteOffset(text, char)]
	before = strings.TrimRightFunc(before, isIdentRune)
	if !strings.HasSuffix(before, ".") {
		return selectorNone, nil
	}
	operand := strings.TrimRight(before[:len(before)-1], " \t")
	trimmed := strings.TrimRightFunc(operand, isIdentRune)
	if trimmed == operand {
		// Not an identifier: a call's result or an index (f().X, a[i].X);
		// the member's declarations cannot be told apart here.
		return selectorOutside, nil
	}
	at := map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     map[string]any{"line": line, "character": iplace.UTF16Col(text, len(trimmed))},
	}
	outside, found, err := b.declared(ctx, at, true)
	switch {
	case err != nil:
		return selectorNone, err
	case outside:
		return selectorOutside, nil
	case !found:
		// A package not imported yet, whose members gopls finds by
		// name wherever they are: each candidate's own package decides
		// (importShown).
		return selectorUnresolved, nil
	}
	return selectorNone, nil
}

// importShown reports whether what gopls says of the declarations of the
// package at path, which accepting a completion would import, may be
// shown: its directory, found as the go command finds it, holds Go files
// and the gate shows every one. A package that cannot be found is not
// shown.
func (b *Bridge) importShown(ctx context.Context, path string) (bool, error) {
	dir, err := b.graph.PackageDir(ctx, path, nil)
	if err != nil {
		return false, ctx.Err()
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	reads := b.reads.Batch()
	for _, f := range files {
		if !reads.Shows(f) {
			return false, nil
		}
	}
	return len(files) > 0, nil
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// namesOutside reports, for each name (the first part of gopls's deep
// completions, as in "v.Field" or "pkg.Func"), whether what is reached
// through it may not be shown: the nearest occurrence of the name in the
// file, before the position first, is asked where it and its type are
// declared. A name that occurs nowhere in the file counts as outside.
func (b *Bridge) namesOutside(ctx context.Context, uri string, lines []string, line int, names []string) (map[string]bool, error) {
	out := make(map[string]bool, len(names))
	for _, name := range names {
		if _, done := out[name]; done {
			continue
		}
		out[name] = true
		at, ok := nearestIdent(lines, line, name)
		if !ok {
			continue
		}
		pos := map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     map[string]any{"line": at[0], "character": at[1]},
		}
		outside, found, err := b.declared(ctx, pos, true)
		if err != nil {
			return nil, err
		}
		out[name] = outside || !found
	}
	return out, nil
}

// nearestIdent finds name as a whole identifier in lines: the last
// occurrence on or before line, else the first after it.
func nearestIdent(lines []string, line int, name string) ([2]int, bool) {
	for l := min(line, len(lines)-1); l >= 0; l-- {
		if cols := iplace.IdentColumns(lines[l], name); len(cols) > 0 {
			return [2]int{l, cols[len(cols)-1]}, true
		}
	}
	for l := line + 1; l < len(lines); l++ {
		if cols := iplace.IdentColumns(lines[l], name); len(cols) > 0 {
			return [2]int{l, cols[0]}, true
		}
	}
	return [2]int{}, false
}
