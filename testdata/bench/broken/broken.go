// Package broken does not compile: the bench measures diagnostics on it.
package broken

import (
	"fmt"
	"os"

	"example.com/benchmod/core"
)

// Total adds amounts, but with the wrong type.
func Total(xs []core.Amount) core.Amount {
	var sum int
	for _, x := range xs {
		sum += x
	}
	return sum
}

// Name uses a name that does not exist.
func Name(id string) string {
	unused := 3
	return fmt.Sprint(id, missing)
}

// Parse passes too many arguments.
func Parse(s string) (core.SKU, error) {
	return core.ParseSKU(s, true)
}

// Count forgets to return.
func Count(xs []string) int {
	for range xs {
	}
}
