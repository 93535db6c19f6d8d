package render

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

func TestFirstSentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  Foo does x.  ", "Foo does x."},
		{"Foo does x. Then y.", "Foo does x."},
		{"Foo does\n\tx and\ny. More.", "Foo does x and y."},
		{"Foo is v1.2 here.\n\nSecond paragraph.", "Foo is v1.2 here."},
		{"No period at all", "No period at all"},
	} {
		if got := FirstSentence(tc.in); got != tc.want {
			t.Errorf("FirstSentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMarkupText(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"plain", "plain"},
		{map[string]any{"kind": "markdown", "value": "*md*"}, "*md*"},
		{map[string]any{"kind": "markdown"}, ""},
		{map[string]any{"value": 3}, ""},
		{nil, ""},
		{42, ""},
	} {
		if got := MarkupText(tc.in); got != tc.want {
			t.Errorf("MarkupText(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFalseFirst(t *testing.T) {
	for _, tc := range []struct {
		a, b bool
		want int
	}{{false, false, 0}, {true, true, 0}, {false, true, -1}, {true, false, 1}} {
		if got := FalseFirst(tc.a, tc.b); got != tc.want {
			t.Errorf("FalseFirst(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	type e struct {
		name string
		test bool
	}
	es := []e{{"a_test", true}, {"a", false}, {"b_test", true}, {"b", false}}
	slices.SortStableFunc(es, func(x, y e) int { return FalseFirst(x.test, y.test) })
	var got []string
	for _, x := range es {
		got = append(got, x.name)
	}
	if diff := cmp.Diff([]string{"a", "b", "a_test", "b_test"}, got); diff != "" {
		t.Errorf("sorted by FalseFirst (-want +got):\n%s", diff)
	}
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"  first\n\tsecond  \nthird\n", "first; second; third"},
	} {
		if got := OneLine(tc.in); got != tc.want {
			t.Errorf("OneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSeverity(t *testing.T) {
	for s, want := range map[protocol.DiagnosticSeverity]string{
		protocol.DiagnosticSeverityError:       "error",
		protocol.DiagnosticSeverityWarning:     "warning",
		protocol.DiagnosticSeverityInformation: "info",
		protocol.DiagnosticSeverityHint:        "hint",
		0:                                      "error",
		9:                                      "error",
	} {
		if got := Severity(s); got != want {
			t.Errorf("Severity(%v) = %q, want %q", s, got, want)
		}
	}
}
