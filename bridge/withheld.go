package bridge

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/mod/modfile"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
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

// withheldNote says, in the answer, why a declaration's text is missing,
// naming what leads from the workspace to the file it is in (path).
func (b *Bridge) withheldNote(path string) string {
	return "the declaration is outside the workspace root, reached through " + b.via(path) + ", so its text is withheld"
}

// withheldText is the sentence of an answer that lists n things (noun,
// as "declaration") whose text it left out, since they are in paths,
// files the gate does not show; "" when n is 0.
func (b *Bridge) withheldText(n int, noun string, paths []string) string {
	if n == 0 {
		return ""
	}
	they := "they are"
	if n == 1 {
		they = "it is"
	}
	return "the text of " + render.Plural(n, noun) + " is withheld: " + they + " outside the workspace root, reached through " + b.via(paths...)
}

// notShown returns the files of paths the gate does not show, once
// each, in order, and how many of paths are in them: what an answer
// listing them leaves the text of out.
func (b *Bridge) notShown(paths ...string) (files []string, n int) {
	seen := map[string]bool{}
	reads := b.reads.Batch()
	for _, p := range paths {
		if p == "" {
			continue
		}
		shown, done := seen[p]
		if !done {
			shown = reads.Shows(p)
			seen[p] = shown
			if !shown {
				files = append(files, p)
			}
		}
		if !shown {
			n++
		}
	}
	return files, n
}

// displayedPath is the absolute path of a file as displayPath shows it;
// "" for the Go installation and the module cache, which are shown.
func (b *Bridge) displayedPath(file string) string {
	switch {
	case strings.HasPrefix(file, "$"):
		return ""
	case filepath.IsAbs(filepath.FromSlash(file)):
		return filepath.FromSlash(file)
	}
	return filepath.Join(b.root, filepath.FromSlash(file))
}

// uriPaths are the paths of file URIs; what is no file URI is left out.
func uriPaths(uris ...string) []string {
	var out []string
	for _, u := range uris {
		if p, err := lspclient.URIPath(u); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// via names what leads from the workspace to the files at paths, which
// the gate does not show: the committed directory link inside the root
// they are under, the replace (of a go.mod in the root) or go.work use
// of a directory outside it. Several are joined with "and"; what cannot
// be told is said as what it is not.
func (b *Bridge) via(paths ...string) string {
	var names []string
	for _, p := range paths {
		name := b.via1(p)
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names) // the same sentence whatever the order of paths
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func (b *Bridge) via1(path string) string {
	clean := filepath.Clean(path)
	if iplace.Within(b.root, clean) {
		// The first link on the way down from the root.
		rel, err := filepath.Rel(b.root, clean)
		if err == nil {
			dir := b.root
			for _, part := range strings.Split(rel, string(filepath.Separator)) {
				dir = filepath.Join(dir, part)
				if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
					return "the directory link " + filepath.ToSlash(b.displayPath(dir))
				}
			}
		}
		return "a link inside the workspace root"
	}
	real := iplace.RealOrClean(clean)
	within := func(dir string) bool {
		return iplace.Within(dir, clean) || iplace.Within(iplace.RealOrClean(dir), real)
	}
	gomods := []string{filepath.Join(b.root, "go.mod")}
	if data, err := b.reads.ReadFile(filepath.Join(b.root, "go.work")); err == nil {
		if wf, err := modfile.ParseWork("go.work", data, nil); err == nil {
			for _, u := range wf.Use {
				dir := u.Path
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(b.root, dir)
				}
				if within(dir) {
					return "the go.work use " + u.Path
				}
				gomods = append(gomods, filepath.Join(dir, "go.mod"))
			}
			for _, r := range wf.Replace {
				if dir := replaceDir(b.root, r); dir != "" && within(dir) {
					return "the replace of " + r.Old.Path + " in go.work"
				}
			}
		}
	}
	for _, gomod := range gomods {
		data, err := b.reads.ReadFile(gomod)
		if err != nil {
			continue
		}
		mf, err := modfile.Parse(gomod, data, nil)
		if err != nil {
			continue
		}
		for _, r := range mf.Replace {
			if dir := replaceDir(filepath.Dir(gomod), r); dir != "" && within(dir) {
				return "the replace of " + r.Old.Path + " in " + filepath.ToSlash(b.displayPath(gomod))
			}
		}
	}
	return "no directory link, replace or go.work use of the workspace"
}

// replaceDir is the directory a replace by a local path leads to, ""
// for a replace by a module version.
func replaceDir(base string, r *modfile.Replace) string {
	if r.New.Version != "" {
		return ""
	}
	if filepath.IsAbs(r.New.Path) {
		return filepath.Clean(r.New.Path)
	}
	return filepath.Join(base, r.New.Path)
}

// declaredOutside returns the file of the declaration of the identifier
// at pos when its text may not be shown, or, with typ, that of its type;
// "" when it may be. A package name counts as declared in its package's
// files, not in the import that names it. gopls finding nothing to go to
// is not outside.
func (b *Bridge) declaredOutside(ctx context.Context, pos map[string]any, typ bool) (string, error) {
	outside, _, err := b.declared(ctx, pos, typ)
	return outside, err
}

// declared is declaredOutside that also says whether gopls found any
// declaration at all.
func (b *Bridge) declared(ctx context.Context, pos map[string]any, typ bool) (outside string, found bool, err error) {
	methods := []string{"textDocument/definition"}
	if typ {
		methods = append(methods, "textDocument/typeDefinition")
	}
	for _, method := range methods {
		locs, err := b.locations(ctx, method, pos)
		if err != nil {
			return "", found, err
		}
		for _, loc := range locs {
			found = true
			outside, err := b.locationOutside(ctx, loc)
			if outside != "" || err != nil {
				return outside, found, err
			}
		}
	}
	return "", found, nil
}

// locationOutside returns the file of the declaration at loc when it may
// not be shown, following an import spec to the package it imports; ""
// when it may be.
func (b *Bridge) locationOutside(ctx context.Context, loc protocol.Location) (string, error) {
	path, err := lspclient.URIPath(string(loc.URI))
	if err != nil {
		return string(loc.URI), nil
	}
	if !b.reads.Shows(path) {
		return path, nil
	}
	// The definition of a package name is its import spec; the package
	// is where the definition of the import path leads.
	line, _ := b.buffers.LineCache().Untrimmed(string(loc.URI), int(loc.Range.Start.Line))
	quote := importPathColumn(line, int(loc.Range.Start.Character))
	if quote < 0 {
		return "", nil
	}
	at := map[string]any{
		"textDocument": map[string]any{"uri": string(loc.URI)},
		"position":     map[string]any{"line": loc.Range.Start.Line, "character": quote + 1},
	}
	pkgs, err := b.locations(ctx, "textDocument/definition", at)
	if err != nil {
		return "", err
	}
	for _, pkg := range pkgs {
		p, err := lspclient.URIPath(string(pkg.URI))
		if err != nil {
			return string(pkg.URI), nil
		}
		if !b.reads.Shows(p) {
			return p, nil
		}
	}
	return "", nil
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
// signature costs less than showing one that should not be. path is the
// file of the declaration found outside, "" when none was found.
func (b *Bridge) calleeOutside(ctx context.Context, uri string, lines func(int) string, line, char int, label string) (outside bool, path string, err error) {
	name, _, ok := strings.Cut(label, "(")
	name = strings.TrimSpace(name)
	if i := strings.LastIndexAny(name, ". "); i >= 0 {
		name = name[i+1:]
	}
	if !ok || name == "" || name == "func" {
		// A function value or literal: its declaration is its type's.
		return false, "", nil
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
		path, err := b.declaredOutside(ctx, at, false)
		return path != "", path, err
	}
	return true, "", nil
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
// the operand's declaration and that of its type are asked. path is the
// file of the declaration outside, for selectorOutside.
func (b *Bridge) selectorAt(ctx context.Context, uri, text string, line, char int) (sel selector, path string, err error) {
	before := text[:iplace.ByteOffset(text, char)]
	before = strings.TrimRightFunc(before, isIdentRune)
	if !strings.HasSuffix(before, ".") {
		return selectorNone, "", nil
	}
	operand := strings.TrimRight(before[:len(before)-1], " \t")
	trimmed := strings.TrimRightFunc(operand, isIdentRune)
	col := len(trimmed)
	if trimmed == operand {
		// Not an identifier: a call's result or an index (f().X, a[i].X),
		// whose type gopls finds at its closing bracket.
		if operand == "" || !strings.ContainsAny(operand[len(operand)-1:], ")]") {
			return selectorOutside, "", nil
		}
		col = len(operand) - 1
	}
	at := map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     map[string]any{"line": line, "character": iplace.UTF16Col(text, col)},
	}
	outside, found, err := b.declared(ctx, at, true)
	switch {
	case err != nil:
		return selectorNone, "", err
	case outside != "":
		return selectorOutside, outside, nil
	case !found && col != len(trimmed):
		// The type of a call's result or an index gopls cannot tell.
		return selectorOutside, "", nil
	case !found:
		// A package not imported yet, whose members gopls finds by
		// name wherever they are: each candidate's own package decides
		// (importShown).
		return selectorUnresolved, "", nil
	}
	return selectorNone, "", nil
}

// importShown reports whether what gopls says of the declarations of the
// package at path, which accepting a completion would import, may be
// shown: its directory, found as the go command finds it, holds Go files
// and the gate shows every one. A package that cannot be found is not
// shown. outside is the first file not shown, if one is.
func (b *Bridge) importShown(ctx context.Context, path string) (shown bool, outside string, err error) {
	dir, err := b.graph.PackageDir(ctx, path, nil)
	if err != nil {
		return false, "", ctx.Err()
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	reads := b.reads.Batch()
	for _, f := range files {
		if !reads.Shows(f) {
			return false, f, nil
		}
	}
	return len(files) > 0, "", nil
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// namesOutside reports, for each name (the first part of gopls's deep
// completions, as in "v.Field" or "pkg.Func"), whether what is reached
// through it may not be shown: the nearest occurrence of the name in the
// file, before the position first, is asked where it and its type are
// declared. A name that occurs nowhere in the file counts as outside.
// paths are the files of the declarations found outside.
func (b *Bridge) namesOutside(ctx context.Context, uri string, lines []string, line int, names []string) (out map[string]bool, paths []string, err error) {
	out = make(map[string]bool, len(names))
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
			return nil, nil, err
		}
		out[name] = outside != "" || !found
		if outside != "" {
			paths = append(paths, outside)
		}
	}
	return out, paths, nil
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
