// Package main imports a module that is in no module cache, so that only a
// download could satisfy it.
package main

import "example.invalid/nothere"

func main() { nothere.Hello() }
