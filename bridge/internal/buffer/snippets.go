package buffer

import (
	"slices"
	"sync"
)

// MaxSnippets bounds the snippets held at once; the oldest is forgotten
// to make room for a new one.
const MaxSnippets = 32

// ScratchDir is where snippets live, below the root. Nothing is ever
// written there: a snippet exists only as a buffer in gopls, which
// type-checks it as a package of the module that holds the root, so it
// can import the workspace's packages. The leading dot keeps it out of
// ./... patterns. Each snippet has a directory of its own, numbered across
// sessions and known only to the session that made it (see Set).
const ScratchDir = ".goplsmcp/scratch"

// Snippets are the snippets one session has given gopls, by URI, oldest
// first. The zero value holds none.
type Snippets struct {
	mu       sync.Mutex
	snippets []string // URIs, oldest first
}

// Has reports whether uri is one of the snippets.
func (bs *Snippets) Has(uri string) bool {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return slices.Contains(bs.snippets, uri)
}

// Add records a new snippet, and returns the URI of the oldest snippet to
// forget if there are too many.
func (bs *Snippets) Add(uri string) (evict string) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if len(bs.snippets) >= MaxSnippets {
		evict = bs.snippets[0]
		bs.snippets = bs.snippets[1:]
	}
	bs.snippets = append(bs.snippets, uri)
	return evict
}

// All returns the snippets' URIs.
func (bs *Snippets) All() []string {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return slices.Clone(bs.snippets)
}

// Forget removes uri, and reports whether it was a snippet.
func (bs *Snippets) Forget(uri string) bool {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	for i, u := range bs.snippets {
		if u == uri {
			bs.snippets = append(bs.snippets[:i], bs.snippets[i+1:]...)
			return true
		}
	}
	return false
}
