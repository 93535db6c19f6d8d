package gocmd

import (
	"runtime"
	"testing"
)

// TestOtherBuildOf reads gopls's suffix of another build's diagnostic,
// against the build goplsmcp runs gopls with.
func TestOtherBuildOf(t *testing.T) {
	other := "freebsd"
	if runtime.GOOS == "freebsd" {
		other = "windows"
	}
	native := &Build{}
	cross := &Build{From: func() ([]string, string, []string) { return []string{"GOOS=" + other}, "", nil }}
	for _, tt := range []struct {
		b       *Build
		message string
		want    bool
	}{
		{native, "undefined: X", false},
		{native, "undefined: X [" + other + ",386]", true},
		{native, "undefined: X [" + other + "]", true},
		{native, "cannot use s (variable of type string) as [2]int value", false},
		{native, "undefined: X [a note]", false},
		// goplsmcp's build is the other system's: its own diagnostics carry
		// the suffix. One without a suffix is kept: it cannot be told from
		// gopls's own system's build.
		{cross, "undefined: X [" + other + "]", false},
		{cross, "undefined: X", false},
	} {
		if got := tt.b.OtherBuildOf(tt.message); got != tt.want {
			t.Errorf("OtherBuildOf(%q) for GOOS %s = %v, want %v", tt.message, tt.b.context().GOOS, got, tt.want)
		}
	}
}
