package symbol

import "testing"

func TestIdentAt(t *testing.T) {
	for _, tc := range []struct {
		line string
		char int
		want string
	}{
		{"x := foo.Bar(y)", 0, "x"},
		{"x := foo.Bar(y)", 5, "foo"},
		{"x := foo.Bar(y)", 8, "foo"}, // just after the name
		{"x := foo.Bar(y)", 9, "Bar"},
		{"x := foo.Bar(y)", 3, ""},
		{"s := \"é\"; héllo_2 := 1", 11, "héllo_2"}, // columns are UTF-16: é is one
		{"", 0, ""},
	} {
		if got := IdentAt(tc.line, tc.char); got != tc.want {
			t.Errorf("IdentAt(%q, %d) = %q, want %q", tc.line, tc.char, got, tc.want)
		}
	}
}
