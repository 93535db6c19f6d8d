package memo

import "sync"

// A Gen keeps answers gopls gave at one modification generation (see
// lspclient.Client.Generation): gopls answers the same question the same
// way until it is told of a change, so an answer found at the current
// generation is the answer gopls would give again. Any change gopls is told
// of (a document, a file on disk, a new gopls) moves the generation, and
// the first answer kept after it starts the cache afresh, as does going
// past Max answers.
type Gen[K comparable, V any] struct {
	// Max bounds the answers kept; it is set before first use.
	Max int

	mu  sync.Mutex
	gen uint64
	m   map[K]V
}

// Get returns the answer to k kept at generation gen.
func (c *Gen[K, V]) Get(gen uint64, k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	if !ok || c.gen != gen {
		var zero V
		return zero, false
	}
	return v, true
}

// Put keeps v, the answer to k found at generation gen, unless gopls was
// told of a change while it was found (changed): an answer computed across
// a change belongs to neither generation. v must never be modified
// afterwards: later callers share it.
func (c *Gen[K, V]) Put(gen uint64, changed bool, k K, v V) {
	c.Keep(gen, changed, map[K]V{k: v})
}

// Keep is Put for several answers at once.
func (c *Gen[K, V]) Keep(gen uint64, changed bool, answers map[K]V) {
	if changed || len(answers) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.m == nil || len(c.m)+len(answers) > c.Max {
		c.gen, c.m = gen, make(map[K]V, len(answers))
	}
	for k, v := range answers {
		c.m[k] = v
	}
}
