package lspclient

import (
	"slices"
	"testing"
)

func TestSemanticTokensLegend(t *testing.T) {
	c := startClient(t, exampleRoot(t))
	types, mods := c.SemanticTokensLegend()
	for _, want := range []string{"namespace", "type", "function", "method", "variable", "keyword"} {
		if !slices.Contains(types, want) {
			t.Errorf("token types %v lack %q", types, want)
		}
	}
	for _, want := range []string{"definition", "readonly", "defaultLibrary"} {
		if !slices.Contains(mods, want) {
			t.Errorf("token modifiers %v lack %q", mods, want)
		}
	}
}
