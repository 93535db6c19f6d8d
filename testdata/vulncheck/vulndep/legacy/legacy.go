// Package legacy is vulnerable (GO-2099-0003), and the fixture does not
// import it.
package legacy

// Old is vulnerable.
func Old() int { return 1 }
