package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
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
	Others []shapeSpan `json:"others" jsonschema:"never omitted, so never nil"`
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
// its Go type's name, a single type for every member (a slice, map or
// pointer without omitempty is required and never null; with omitempty it
// is optional), and every object schema still listing properties.
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
			"others": map[string]any{"type": "array", "items": span},
			"extra":  span,
			"maybe":  span,
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

	// It still validates what the type marshals to when every member
	// without omitempty is filled, and rejects what it does not, and a
	// null member.
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving the compacted schema: %v", err)
	}
	n := 3
	for _, v := range []shapeOut{
		{Others: []shapeSpan{}, Maybe: &shapeSpan{}},
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
		`{"main":{"from":{"line":0,"col":0},"to":{"line":"x","col":0}},"others":[],"maybe":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}}}`,
		`{"main":{"from":{"line":0,"col":0}},"others":[],"maybe":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}}}`,
		`{"main":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}},"others":[],"maybe":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}},"extra":null}`,
		`{"main":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}},"others":null,"maybe":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}}}`,
		`{"main":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}},"others":[],"maybe":null}`,
		`{"main":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}},"maybe":{"from":{"line":0,"col":0},"to":{"line":0,"col":0}}}`,
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
	plainTypes(s)
	for name, want := range map[string]string{"line": "integer", "files": "array"} {
		p := s.Properties[name]
		if p.Type != want || p.Types != nil || p.Description == "" {
			t.Errorf("%s: type %q, types %v, description %q; want type %q with a description", name, p.Type, p.Types, p.Description, want)
		}
	}
}

// Kinds of Go fields whose generated schemas are nullable or repeated, for
// TestPortableSchemas.
type kindsLeaf struct {
	Name string `json:"name"`
}

type kindsIn struct {
	Line  *int           `json:"line,omitempty" jsonschema:"a pointer"`
	Files []string       `json:"files,omitempty" jsonschema:"a slice"`
	Env   map[string]int `json:"env,omitempty" jsonschema:"a map"`
	At    *kindsLeaf     `json:"at,omitempty" jsonschema:"a pointer to a struct"`
	More  []kindsLeaf    `json:"more,omitempty" jsonschema:"a slice of structs"`
}

type kindsOut struct {
	shapeBase
	One     kindsLeaf              `json:"one"`
	Ptr     *kindsLeaf             `json:"ptr"`
	MaybePt *kindsLeaf             `json:"maybePtr,omitempty"`
	List    []kindsLeaf            `json:"list"`
	Ptrs    []*kindsLeaf           `json:"ptrs"`
	ByName  map[string]kindsLeaf   `json:"byName"`
	Groups  map[string][]kindsLeaf `json:"groups,omitempty"`
	Nested  [][]int                `json:"nested"`
	Count   *int                   `json:"count,omitempty"`
}

// TestPortableSchemas walks the input and output schema of every tool the
// test server registers, as tools/list sends them, with one tool made of
// every kind of field that generates a nullable or a repeated schema: every
// node has exactly one type, given as a string (an output node may instead
// be a $ref alone), no node combines schemas, and no input has a $ref.
// These are the rules single-type dialects (Gemini's function declarations)
// need and the MCP Inspector's --strict checks.
func TestPortableSchemas(t *testing.T) {
	s := testServer(t, nil)
	err := AddTool(s, Tool{Name: "kinds", Title: "Kinds", Description: "Every kind of field.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *kindsIn) (*kindsOut, error) { return &kindsOut{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	got := runLines(t, s, "2025-11-25", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`})
	var list struct {
		Result struct {
			Tools []struct {
				Name         string         `json:"name"`
				InputSchema  map[string]any `json:"inputSchema"`
				OutputSchema map[string]any `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got[0]), &list); err != nil {
		t.Fatal(err)
	}
	var walk func(where, path string, node any, input bool)
	walk = func(where, path string, node any, input bool) {
		n, ok := node.(map[string]any)
		if !ok {
			if node != false || !strings.HasSuffix(path, "/additionalProperties") {
				t.Errorf("%s %s: %v is not a schema object", where, path, node)
			}
			return
		}
		_, hasRef := n["$ref"]
		typ, hasType := n["type"]
		switch {
		case hasRef && input:
			t.Errorf("%s %s: a $ref in an input schema", where, path)
		case hasRef && hasType:
			t.Errorf("%s %s: a $ref with a type", where, path)
		case hasRef:
		default:
			if _, ok := typ.(string); !ok {
				t.Errorf("%s %s: type %v, want one type", where, path, typ)
			}
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "not"} {
			if _, ok := n[k]; ok {
				t.Errorf("%s %s: has %s", where, path, k)
			}
		}
		for _, k := range []string{"properties", "$defs"} {
			if m, ok := n[k].(map[string]any); ok {
				for name, sub := range m {
					walk(where, path+"/"+k+"/"+name, sub, input)
				}
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if sub, ok := n[k]; ok {
				walk(where, path+"/"+k, sub, input)
			}
		}
	}
	seen := false
	for _, tool := range list.Result.Tools {
		walk(tool.Name+" inputSchema", "#", tool.InputSchema, true)
		walk(tool.Name+" outputSchema", "#", tool.OutputSchema, false)
		seen = seen || tool.Name == "kinds"
	}
	if !seen {
		t.Fatal("the kinds tool is not listed")
	}
	var kinds map[string]any
	for _, tool := range list.Result.Tools {
		if tool.Name == "kinds" {
			kinds = tool.OutputSchema
		}
	}
	// Members without omitempty are required: the tool must fill them.
	required, _ := kinds["required"].([]any)
	want := []any{"one", "ptr", "list", "ptrs", "byName", "nested"}
	if diff := cmp.Diff(want, required); diff != "" {
		t.Errorf("required members of kinds' output (-want +got):\n%s", diff)
	}
}

// TestUnportableTypes checks that AddTool refuses a type whose schema
// could not have one type per node: a field that takes anything.
func TestUnportableTypes(t *testing.T) {
	s := testServer(t, nil)
	type anyOut struct {
		Value any `json:"value"`
	}
	type anyIn struct {
		Value any `json:"value,omitempty"`
	}
	def := Tool{Name: "untyped", Title: "Untyped", Description: "Takes anything.", Annotations: readOnlyHints()}
	err := AddTool(s, def, func(ctx context.Context, in *struct{}) (*anyOut, error) { return &anyOut{}, nil })
	if err == nil || !strings.Contains(err.Error(), "output schema: #/properties/value has no type") {
		t.Errorf("an output field of type any: %v", err)
	}
	err = AddTool(s, def, func(ctx context.Context, in *anyIn) (*echoOut, error) { return &echoOut{}, nil })
	if err == nil || !strings.Contains(err.Error(), "input schema: #/properties/value has no type") {
		t.Errorf("an input field of type any: %v", err)
	}
}

// TestUnportable checks the rule on schemas the generator does not make.
func TestUnportable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema *jsonschema.Schema
		refs   bool
		want   string // substring of the error; "" for none
	}{
		{"plain", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "string"}}}, false, ""},
		{"types", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Types: []string{"null", "array"}, Items: &jsonschema.Schema{Type: "string"}}}}, true, "#/properties/a has the types [null array]"},
		{"ref in input", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Ref: "#/$defs/A"}}}, false, "#/properties/a is a $ref"},
		{"ref in output", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Ref: "#/$defs/A"}}, Defs: map[string]*jsonschema.Schema{"A": {Type: "object"}}}, true, ""},
		{"anyOf", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "string", AnyOf: []*jsonschema.Schema{{Type: "null"}}}}}, true, "combines schemas"},
		{"untyped item", &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{}}, true, "#/items has no type"},
		{"bad def", &jsonschema.Schema{Type: "object", Defs: map[string]*jsonschema.Schema{"A": {Types: []string{"null", "object"}}}}, true, "#/$defs/A has the types"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := unportable(tc.schema, tc.refs)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unportable: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("unportable: %v, want %q", err, tc.want)
			}
		})
	}
}
