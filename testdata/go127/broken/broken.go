// Package broken holds the module's one real error.
package broken

// Total should count the items.
func Total(items []string) int {
	return "none"
}
