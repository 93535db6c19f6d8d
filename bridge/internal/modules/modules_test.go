package modules

import "testing"

// TestNamesModule checks that a message names a module only by its whole
// path, or a package below it.
func TestNamesModule(t *testing.T) {
	for _, tc := range []struct {
		msg, path string
		want      bool
	}{
		{`could not import golang.org/x/mod/semver (no required module provides package "golang.org/x/mod/semver")`, "golang.org/x/mod", true},
		{`failed to resolve import "golang.org/x/mod"`, "golang.org/x/mod", true},
		{"module golang.org/x/mod is missing", "golang.org/x/mod", true},
		{"golang.org/x/mod", "golang.org/x/mod", true},
		{"could not import golang.org/x/modfile", "golang.org/x/mod", false},
		{"could not import example.com/golang.org/x/modern (x)", "golang.org/x/mod", false},
		{"nothing about modules", "golang.org/x/mod", false},
	} {
		if got := namesModule(tc.msg, tc.path); got != tc.want {
			t.Errorf("namesModule(%q, %q) = %v, want %v", tc.msg, tc.path, got, tc.want)
		}
	}
}
