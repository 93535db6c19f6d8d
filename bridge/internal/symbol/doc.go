// Package symbol owns the syntax of symbol names and where they are
// declared in parsed files, the part of resolving a symbol argument that
// needs no gopls: the forms Name, pkg.Name, Type.Method, pkg.Type.Method
// and (*Type).Method split into parts and their possible readings (Split,
// Readings); the declarations of a reading in a package's parsed files
// (Package.Decls, MatchDecl), with 0-based lines and UTF-16 columns; and
// methods and fields promoted through embedded fields, searched level by
// level as Go's selector rule has it (Promoted); and the identifier at a
// column of a source line (IdentAt). Which packages to parse
// and where an import leads are gopls's to say: bridge asks it and hands
// the answers in (the resolve function of Promoted).
//
// Imports: render (clipped echoes of the argument in messages) and place
// (UTF-16 columns); besides, the standard library.
package symbol
