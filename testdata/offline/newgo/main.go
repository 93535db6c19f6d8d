// Package main belongs to a module that asks for a Go release that does not
// exist, so that only a toolchain download could satisfy it.
package main

func main() {}
