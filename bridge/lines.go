package bridge

import (
	"strings"
	"sync"
)

// lineMemo keeps the lines of the texts the bridge shows, by file, so that
// a file shown call after call is split once. An entry serves only the
// very text it was made from: the file cache and open documents hand out
// the same string while a file is unchanged, which compares equal at
// once; a changed file's new text does not, and is split again.
type lineMemo struct {
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

// lines returns text split into lines without their line ends. The slice
// is shared and must not be modified.
func (m *lineMemo) lines(path, text string) []string {
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
