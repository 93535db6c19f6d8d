package bridge

import "sync"

// apiCache keeps the packages go_package_api described, for one
// modification generation of gopls (see diagCache): a package's API
// depends on its files and on gopls's view of the workspace, and both move
// the generation when they change, but only for directories the watcher
// sees every change in. Packages elsewhere (outside the root, off Linux)
// are described afresh each time.
type apiCache struct {
	mu   sync.Mutex
	gen  uint64
	pkgs map[apiKey]apiEntry
}

type apiKey struct {
	path     string
	detailed bool
}

type apiEntry struct {
	key apiKey
	dir string
	api PackageAPI // its Decls are shared: never modified
}

// maxCachedPackages bounds the cache; past it, it starts afresh.
const maxCachedPackages = 128

// get returns the package at path described at generation gen, if kept
// and its directory is still watched.
func (c *apiCache) get(gen uint64, path string, detailed bool, watched func(dir string) bool) (PackageAPI, bool) {
	c.mu.Lock()
	e, ok := c.pkgs[apiKey{path, detailed}]
	ok = ok && c.gen == gen
	c.mu.Unlock()
	if !ok || !watched(e.dir) {
		return PackageAPI{}, false
	}
	return e.api, true
}

// keep records packages described at gen, unless gopls was told of a
// change meanwhile.
func (c *apiCache) keep(gen uint64, changed bool, entries []apiEntry) {
	if changed || len(entries) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.pkgs == nil || len(c.pkgs)+len(entries) > maxCachedPackages {
		c.gen = gen
		c.pkgs = make(map[apiKey]apiEntry)
	}
	for _, e := range entries {
		c.pkgs[e.key] = e
	}
}
