// Package gocmd owns what goplsmcp knows of the go command and its rules:
// running it bounded by a deadline (Run), what the go command that gopls
// runs says of itself (Env, learnt once: GOROOT, GOMODCACHE, its Go
// version, and whether the toolchain GOTOOLCHAIN names is here), the build context gopls type-checks with as
// far as choosing a package's files goes (Build), the modules under the
// root as their go.mod and vendor/modules.txt say (Finder), the import
// path of the package in a directory (ImportPath, ImportPaths), an import
// path argument checked as text (ImportPathArg), whether an import path
// is the standard library's (IsStdPath), and which
// directories the go command walks (BreadthFirst, SkipDir).
//
// Imports: render (clipped echoes of an argument in messages) and place
// (to read go.mod files through the read gate and resolve the links of
// the directories the go command names); besides, the standard library
// and golang.org/x/mod.
package gocmd
