// Package app uses lib's generic methods, a promoted field in a literal
// and Go 1.27's strings.CutLast.
package app

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"example.com/go127/lib"
)

// Port returns the port of a host:port address.
func Port(addr string) (int, bool) {
	_, port, ok := strings.CutLast(addr, ":")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(port)
	if n := n; err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// Count reads an int through the generic method.
func Count(v any) int {
	var c lib.Conv
	n, _ := c.As[int](v)
	return n
}

// Name reads a string through the generic method of a literal.
func Name(v any) string {
	s, _ := lib.Conv{}.As[string](v)
	return s
}

// Lengths maps a box of strings to their lengths, inferring U.
func Lengths(b lib.Box[string]) lib.Box[int] {
	return b.Map(func(s string) int { return len(s) })
}

// First is the first item, its ID set through the embedded Base.
func First() lib.Item {
	it := lib.Item{ID: 1, Price: 2}
	it.Name = "first"
	return it
}

// Roll rolls a die with the standard library's generic method.
func Roll(r *rand.Rand) int {
	return r.N(6) + 1
}
