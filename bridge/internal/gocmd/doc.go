// Package gocmd owns goplsmcp's own use of the go command: running it
// bounded by a deadline (Run), the Go installation's directories it
// reports (Env: GOROOT and GOMODCACHE, learnt once), and the build
// context gopls type-checks with as far as choosing a package's files
// goes (Build).
//
// It imports the standard library and bridge/internal/place (to resolve
// the links of the directories the go command names); it never imports
// bridge.
package gocmd
