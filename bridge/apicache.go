package bridge

// go_package_api keeps the packages it described (see memo.Gen): a
// package's API depends on its files and on gopls's view of the
// workspace, and both move the generation when they change, but only for
// directories the watcher sees every change in. So a package is kept only
// where its directory is watched, and used only while it still is;
// packages elsewhere (outside the root, off Linux) are described afresh
// each time.

// apiKey names one go_package_api answer for a package.
type apiKey struct {
	path     string
	detailed bool
}

// apiEntry is a described package and the directory it was read from.
type apiEntry struct {
	dir string
	api PackageAPI // its Decls are shared: never modified
}

// maxCachedPackages bounds the packages kept.
const maxCachedPackages = 128
