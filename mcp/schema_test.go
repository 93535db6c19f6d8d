package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type shapePoint struct {
	Line int `json:"line" jsonschema:"0-based line"`
	Col  int `json:"col"`
}

type shapeSpan struct {
	From shapePoint `json:"from"`
	To   shapePoint `json:"to"`
}

type shapeBase struct {
	Note string `json:"note,omitempty" jsonschema:"a member of an embedded struct"`
}

type shapeOut struct {
	shapeBase
	Main   shapeSpan   `json:"main" jsonschema:"the main span"`
	Others []shapeSpan `json:"others" jsonschema:"never omitted, so it may be null"`
	Extra  *shapeSpan  `json:"extra,omitempty"`
	Maybe  *shapeSpan  `json:"maybe"`
	Tags   []string    `json:"tags,omitempty"`
	Count  *int        `json:"count,omitempty"`
}

type shapeIn struct {
	Line  *int     `json:"line,omitempty" jsonschema:"0-based line"`
	Files []string `json:"files,omitempty" jsonschema:"files"`
}

// TestCompactOutput checks the shape of an output schema: no descriptions,
// no additionalProperties, a repeated object defined once under $defs by
// its Go type's name, never-null omitempty members, nullable members
// still nullable, and every object schema still listing properties.
func TestCompactOutput(t *testing.T) {
	s, err := schemaFor[shapeOut]()
	if err != nil {
		t.Fatal(err)
	}
	compactOutput(s, reflect.TypeFor[shapeOut]())
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	span := map[string]any{"$ref": "#/$defs/shapeSpan"}
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"note":   map[string]any{"type": "string"},
			"main":   span,
			"others": map[string]any{"type": []any{"null", "array"}, "items": span},
			"extra":  span,
			"maybe":  map[string]any{"anyOf": []any{map[string]any{"type": "null"}, span}},
			"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"count":  map[string]any{"type": "integer"},
		},
		"required": []any{"main", "others", "maybe"},
		"$defs": map[string]any{
			"shapePoint": map[string]any{
				"type":       "object",
				"properties": map[string]any{"line": map[string]any{"type": "integer"}, "col": map[string]any{"type": "integer"}},
				"required":   []any{"line", "col"},
			},
			"shapeSpan": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"from": map[string]any{"$ref": "#/$defs/shapePoint"},
					"to":   map[string]any{"$ref": "#/$defs/shapePoint"},
				},
				"required": []any{"from", "to"},
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compacted output schema (-want +got):\n%s", diff)
	}

	// It still validates what the type marshals to, and rejects what it
	// does not.
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving the compacted schema: %v", err)
	}
	n := 3
	for _, v := range []shapeOut{
		{},
		{shapeBase: shapeBase{Note: "n"}, Others: []shapeSpan{{}}, Extra: &shapeSpan{}, Maybe: &shapeSpan{}, Tags: []string{"a"}, Count: &n},
	} {
		var inst any
		raw, _ := json.Marshal(v)
		if err := json.Unmarshal(raw, &inst); err != nil {
			t.Fatal(err)
		}
		if err := r.Validate(inst); err != nil {
			t.Errorf("%s does not validate: %v", raw, err)
		}
	}
	for _, bad := range []string{
		`{"main":{"from":{"line":0,"col":0},"to":{"line":"x","col":0}},"others":null,"maybe":null}`,
		`{"main":{"from":{"line":0,"col":0}},"others":null,"maybe":null}`,
		`{"main":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}},"others":null,"maybe":null,"extra":null}`,
	} {
		var inst any
		if err := json.Unmarshal([]byte(bad), &inst); err != nil {
			t.Fatal(err)
		}
		if err := r.Validate(inst); err == nil {
			t.Errorf("%s validates, but should not", bad)
		}
	}
}

type shapeOnce struct {
	At shapePoint `json:"at"`
}

// TestCompactOutputOnce checks that an object that occurs once stays
// inline.
func TestCompactOutputOnce(t *testing.T) {
	s, err := schemaFor[shapeOnce]()
	if err != nil {
		t.Fatal(err)
	}
	compactOutput(s, reflect.TypeFor[shapeOnce]())
	if s.Defs != nil || s.Properties["at"].Type != "object" {
		data, _ := json.Marshal(s)
		t.Errorf("an object used once was moved to $defs: %s", data)
	}
}

// TestPlainInputTypes checks that nullable inputs get their plain type and
// keep their descriptions.
func TestPlainInputTypes(t *testing.T) {
	s, err := schemaFor[shapeIn]()
	if err != nil {
		t.Fatal(err)
	}
	plainInputTypes(s)
	for name, want := range map[string]string{"line": "integer", "files": "array"} {
		p := s.Properties[name]
		if p.Type != want || p.Types != nil || p.Description == "" {
			t.Errorf("%s: type %q, types %v, description %q; want type %q with a description", name, p.Type, p.Types, p.Description, want)
		}
	}
}
