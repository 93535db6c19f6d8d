// Package vulndep is a dependency with known vulnerabilities, listed in
// ../vulndb, for go_vulncheck's tests.
package vulndep

import "strings"

// Unsafe is vulnerable (GO-2099-0001), and the fixture calls it.
func Unsafe(s string) string { return strings.ToUpper(s) }

// Leaky is vulnerable (GO-2099-0002), and the fixture does not call it.
func Leaky(s string) string { return strings.ToLower(s) }

// Safe is not vulnerable.
func Safe(s string) string { return strings.TrimSpace(s) }
