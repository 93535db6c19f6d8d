// Package buildtags calls a function that exists only under the
// integration build tag.
package buildtags

// Use calls Integrated, declared in integration.go.
func Use() string {
	return Integrated()
}
