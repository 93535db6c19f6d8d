//go:build integration

package buildtags

// Integrated exists only in builds with -tags=integration.
func Integrated() string { return "integration" }
