// Package target owns a call's target: the place in a held source that a
// tool call's At names, found from a position (checked, or snapped onto
// the identifier Name expects, up to two lines away), or from a symbol
// name (Name, pkg.Name, Type.Method, ...), resolved in the scope of the
// file given or across the workspace. A Resolver turns an At into a
// Target; a Target keeps gopls holding the buffers it was resolved in
// until released (Release), so that an answer matches them, and gives the
// LSP position of the place (Position).
//
// Resolving a symbol needs gopls for what syntax cannot say: which
// packages declare a name (its workspace symbol search) and where an
// import leads (ImportedPackageDir, the definition of the import path);
// the files themselves are parsed here, with package symbol reading the
// declarations.
//
// Imports: ask (gopls's failures as tool errors), memo (syntax trees),
// render (echoes in messages), place (the root, display paths, UTF-16
// columns), buffer (the sources targets are in), gocmd (which files are
// in the build), symbol (names and their declarations) and lspclient (the
// gopls asked); besides, the standard library and go.lsp.dev/protocol.
package target
