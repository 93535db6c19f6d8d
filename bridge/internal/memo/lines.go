package memo

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"sync"
)

// Lines keeps the lines of the texts the tools show, by file, so that
// a file shown call after call is split once. An entry serves only the
// very text it was made from: the file cache and open documents hand out
// the same string while a file is unchanged, which compares equal at
// once; a changed file's new text does not, and is split again.
type Lines struct {
	mu    sync.Mutex
	files map[string]lineEntry
	bytes int
}

type lineEntry struct {
	text  string
	lines []string // shared: never modified
}

// Bounds of the memo; past either it starts afresh.
const (
	maxMemoFiles = 256
	maxMemoBytes = 16 << 20
)

// Lines returns text split into lines without their line ends. The slice
// is shared and must not be modified.
func (m *Lines) Lines(path, text string) []string {
	m.mu.Lock()
	e, ok := m.files[path]
	m.mu.Unlock()
	if ok && e.text == text {
		return e.lines
	}
	lines := textLines(text)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil || len(m.files) >= maxMemoFiles || m.bytes+len(text) > maxMemoBytes {
		m.files = make(map[string]lineEntry)
		m.bytes = 0
	}
	if old, ok := m.files[path]; ok {
		m.bytes -= len(old.text)
	}
	m.files[path] = lineEntry{text: text, lines: lines}
	m.bytes += len(text)
	return lines
}

// textLines splits text at LF, dropping a CR before it.
func textLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// Trees keeps the syntax trees of the files the tools parsed lately,
// by file and mode, for the very text each was parsed from (see
// Lines): resolving a symbol in a large file parsed it on every call.
// A tree takes about ten times its source in memory, so the memo is
// bounded by source bytes; trees are shared and must not be modified.
type Trees struct {
	mu    sync.Mutex
	trees map[parseKey]*parseEntry
	bytes int
	clock uint64
}

type parseKey struct {
	path string
	mode parser.Mode
}

type parseEntry struct {
	text string
	fset *token.FileSet
	file *ast.File
	err  error
	used uint64
}

// maxParsedBytes bounds the source of the trees kept.
const maxParsedBytes = 1 << 20

// Parse returns text parsed as the file at path with mode, as
// parser.ParseFile does, each in a file set of its own.
func (m *Trees) Parse(path, text string, mode parser.Mode) (*token.FileSet, *ast.File, error) {
	key := parseKey{path, mode}
	m.mu.Lock()
	if e, ok := m.trees[key]; ok && e.text == text {
		m.clock++
		e.used = m.clock
		m.mu.Unlock()
		return e.fset, e.file, e.err
	}
	m.mu.Unlock()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, text, mode)
	if len(text) > maxParsedBytes/4 {
		return fset, file, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.trees == nil {
		m.trees = make(map[parseKey]*parseEntry)
	}
	if old, ok := m.trees[key]; ok {
		m.bytes -= len(old.text)
	}
	m.clock++
	m.trees[key] = &parseEntry{text: text, fset: fset, file: file, err: err, used: m.clock}
	m.bytes += len(text)
	for m.bytes > maxParsedBytes {
		var oldest parseKey
		var used uint64
		first := true
		for k, e := range m.trees {
			if first || e.used < used {
				oldest, used, first = k, e.used, false
			}
		}
		m.bytes -= len(m.trees[oldest].text)
		delete(m.trees, oldest)
	}
	return fset, file, err
}
