// Package modules owns the workspace's modules as gopls builds them and as
// the module cache lacks them: the modules under the root (from
// gocmd.Finder, found again only when the disk changes), the builds
// (views) gopls keeps for them, a build given to each nested module that
// builds with another of the tree so that the workspace's diagnostics
// cover it (WorkspaceFiles), and the one-line hints that say a module is
// missing from the module cache, or that the go command loads none of a
// module's packages, and how to fix it (Hint, HintFor, HintForFailure,
// HintAt), where gopls's own words would send an agent to fix correct code,
// and the sentence that says the gopls answering was built by a Go older
// than the workspace's or the go command's (Skew), whose false errors
// would do the same.
//
// Imports: ask (gopls's failures as tool errors), memo, place, buffer,
// gocmd, symbol and lspclient (gopls's views and packages, the disk
// epoch, the Go that built gopls); besides, the standard library and
// golang.org/x/mod.
package modules
