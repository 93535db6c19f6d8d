// Package graph owns the workspace's packages and their import graph as
// gopls sees them: the workspace's packages by import path (Graph.Workspace),
// where any package's directory is (Graph.PackageDir: the workspace, GOROOT,
// or the go command, offline), the package gopls builds a file in
// (Graph.FilePackage), a package's direct imports and a file gopls builds
// it from (Walk.Imports), and the workspace packages importing it, level
// by level, tests named apart (Walk.ImporterLevels, ImportersName).
// go_package_graph, go_package_api, go_symbol_references's radius,
// go_file_metadata and go_context are its users.
//
// What it needs of the bridge is given in a Graph: the root, the gopls
// client, the buffers (current texts, the scratch directory, other
// sessions' snippets), the read gate, the lines memo, the go command's
// environment and build context.
//
// Imports: ask (requests a few at a time, failures as tool errors), memo
// (lines), render (list order), place (display paths, UTF-16 columns,
// confinement), buffer (the sources and sessions), gocmd (the go command,
// import paths, the build) and lspclient (the gopls asked); besides, the
// standard library and go.lsp.dev/protocol.
package graph
