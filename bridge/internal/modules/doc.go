// Package modules owns the workspace's modules as gopls builds them and as
// the module cache lacks them: the modules under the root (from
// gocmd.Finder, found again only when the disk changes), the builds
// (views) gopls keeps for them, a build given to each nested module that
// builds with another of the tree so that the workspace's diagnostics
// cover it (WorkspaceFiles), and the one-line hints that say a module is
// missing from the module cache, or that the go command loads none of a
// module's packages, and how to fix it (Hint, HintFor, HintForFailure,
// HintAt), where gopls's own words would send an agent to fix correct code.
//
// Imports: ask (gopls's failures as tool errors), memo, place, buffer,
// gocmd, symbol and lspclient (gopls's views and packages, the disk
// epoch); besides, the standard library.
package modules
