package mcp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every client puts tools/list into the model's context, so the schemas
// are shaped for size as well as for validation. Inputs are what the
// model writes: they keep their descriptions, stay self-contained (no
// $ref, which some clients mishandle) and forbid unknown properties. Outputs
// are what programs check results against: they keep the structure
// (types, properties, required members) and lose what only repeats it.
//
// Both are portable: every schema node has one type, never a list such as
// ["null", "array"], which clients that map tool schemas onto a
// single-type dialect (Gemini's function declarations, OpenAPI 3.0)
// reject. The rule for the Go types behind them follows from
// encoding/json and jsonschema-go: a field without omitempty is required,
// and a slice, map or pointer field is typed as what it points to, never
// null. So a tool fills every slice or map field without omitempty (an
// empty list is [], not null) and every pointer field without omitempty;
// a field that may be absent says omitempty.

// plainTypes gives every schema node in s its plain type: jsonschema-go
// types a pointer, slice or map as ["null", T], and by the rule above
// none is ever null, in arguments (a client has no reason to send null
// for an argument it can leave out) or in results.
func plainTypes(s *jsonschema.Schema) {
	walkSchemas(&s, func(slot **jsonschema.Schema) bool {
		sub := *slot
		if len(sub.Types) == 2 && sub.Types[0] == "null" {
			sub.Type, sub.Types = sub.Types[1], nil
		}
		return true
	})
}

// unportable reports, as an error naming its path, the first node of s
// that breaks the portability rule: a node without exactly one type (a
// list of types, or none, which accepts anything), a combinator, or, where
// refs is false, a $ref. With refs, a node may be a bare $ref to the
// schema's $defs instead; additionalProperties may be the false schema.
func unportable(s *jsonschema.Schema, refs bool) error {
	var check func(s *jsonschema.Schema, path string) error
	check = func(s *jsonschema.Schema, path string) error {
		if s == nil {
			return nil
		}
		switch {
		case s.Ref != "" && !refs:
			return fmt.Errorf("%s is a $ref; an input schema is self-contained", path)
		case s.Ref != "":
			if s.Type != "" || len(s.Types) > 0 {
				return fmt.Errorf("%s has a type beside its $ref", path)
			}
		case len(s.Types) > 0:
			return fmt.Errorf("%s has the types %v; give it one type (a field without omitempty is never null)", path, s.Types)
		case s.Type == "":
			return fmt.Errorf("%s has no type, so it accepts anything; give the Go field a concrete type", path)
		}
		if len(s.AnyOf)+len(s.OneOf)+len(s.AllOf)+len(s.PrefixItems) > 0 {
			return fmt.Errorf("%s combines schemas; give it one plain type", path)
		}
		for _, k := range sortedKeys(s.Defs) {
			if err := check(s.Defs[k], path+"/$defs/"+k); err != nil {
				return err
			}
		}
		for _, k := range sortedKeys(s.Properties) {
			if err := check(s.Properties[k], path+"/properties/"+k); err != nil {
				return err
			}
		}
		if err := check(s.Items, path+"/items"); err != nil {
			return err
		}
		if isFalseSchema(s.AdditionalProperties) {
			return nil
		}
		return check(s.AdditionalProperties, path+"/additionalProperties")
	}
	return check(s, "#")
}

// compactOutput shrinks the output schema s of the Go type t; it still
// accepts every value of t that follows the rule above as encoding/json
// writes it. Descriptions are dropped (the members' names and the tool's
// lean text say what they are; the schema is for checking results),
// objects allow additional members (so the debug member every result may
// carry needs no declaration), every member has its plain type, and an
// object schema that occurs more than once is defined once under $defs,
// named after its Go type, and referred to.
func compactOutput(s *jsonschema.Schema, t reflect.Type) {
	stripOutput(s)
	plainTypes(s)
	dedupe(s, outputTypeNames(t))
}

// stripOutput drops additionalProperties: false and the descriptions
// everywhere in s.
func stripOutput(s *jsonschema.Schema) {
	walkSchemas(&s, func(slot **jsonschema.Schema) bool {
		sub := *slot
		if isFalseSchema(sub.AdditionalProperties) {
			sub.AdditionalProperties = nil
		}
		sub.Description = ""
		return true
	})
}

func isFalseSchema(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// outputTypeNames maps the canonical form of the (stripped) schema of
// every named struct type reachable from t to the type's name, for naming
// $defs.
func outputTypeNames(t reflect.Type) map[string]string {
	names := map[string]string{}
	taken := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		if name := t.Name(); validDefName(name) {
			maps, _ := orderedMapSchemas(t)
			if s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: maps}); err == nil {
				addProperties(s)
				stripOutput(s)
				plainTypes(s)
				key := canonical(s)
				if _, dup := names[key]; !dup && !taken[name] {
					names[key], taken[name] = name, true
				}
			}
		}
		for i := range t.NumField() {
			visit(t.Field(i).Type)
		}
	}
	visit(t)
	return names
}

// validDefName reports whether a Go type name can name a definition as
// is: generic instantiations, with brackets, cannot.
func validDefName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// canonical is the JSON of an object schema as a definition holds it:
// without its own description.
func canonical(s *jsonschema.Schema) string {
	c := *s
	c.Description = ""
	data, err := json.Marshal(&c)
	if err != nil {
		// A schema generated from a Go type always marshals.
		panic(fmt.Sprintf("marshaling a schema: %v", err))
	}
	return string(data)
}

// isObjectSchema reports whether s is an inline object schema.
func isObjectSchema(s *jsonschema.Schema) bool {
	return s.Ref == "" && s.Type == "object"
}

// dedupe moves object schemas that occur more than once below s into
// s.$defs, one at a time, the one that saves the most bytes first, until
// no move saves any. A definition is named after its Go type when names
// knows it.
func dedupe(s *jsonschema.Schema, names map[string]string) {
	// candidate reports whether the schema in slot is an inline object
	// schema below s, other than a definition itself.
	candidate := func(sub *jsonschema.Schema) bool {
		if sub == s || !isObjectSchema(sub) {
			return false
		}
		for _, d := range s.Defs {
			if d == sub {
				return false
			}
		}
		return true
	}
	for n := 1; ; n++ {
		counts := map[string]int{}
		// inlined maps a candidate's canonical form to that of the
		// same schema with its references replaced by what they refer
		// to, as names knows it.
		inlined := map[string]string{}
		walkSchemas(&s, func(slot **jsonschema.Schema) bool {
			if sub := *slot; candidate(sub) {
				key := canonical(sub)
				counts[key]++
				if _, ok := inlined[key]; !ok {
					inlined[key] = canonical(expandRefs(sub, s.Defs))
				}
			}
			return true
		})
		best, bestSaving := "", 0
		for key, count := range counts {
			name := defName(names, inlined[key], n)
			ref := len(`{"$ref":"#/$defs/"}`) + len(name)
			saving := (count-1)*len(key) - count*ref - len(`"":,`) - len(name)
			if s.Defs == nil {
				saving -= len(`,"$defs":{}`)
			}
			if saving > bestSaving || saving == bestSaving && saving > 0 && key < best {
				best, bestSaving = key, saving
			}
		}
		if best == "" {
			return
		}
		name := defName(names, inlined[best], n)
		if _, taken := s.Defs[name]; taken {
			name = fmt.Sprintf("%s%d", name, n)
		}
		ref := "#/$defs/" + name
		var def *jsonschema.Schema
		walkSchemas(&s, func(slot **jsonschema.Schema) bool {
			sub := *slot
			if !candidate(sub) || canonical(sub) != best {
				return true
			}
			if def == nil {
				def = sub.CloneSchemas()
				def.Description = ""
			}
			*slot = &jsonschema.Schema{Ref: ref, Description: sub.Description}
			return false
		})
		if s.Defs == nil {
			s.Defs = map[string]*jsonschema.Schema{}
		}
		s.Defs[name] = def
	}
}

// expandRefs returns a copy of s with every reference to defs replaced by
// (a copy of) the definition, as it was before dedupe moved it.
func expandRefs(s *jsonschema.Schema, defs map[string]*jsonschema.Schema) *jsonschema.Schema {
	s = s.CloneSchemas()
	walkSchemas(&s, func(slot **jsonschema.Schema) bool {
		sub := *slot
		name, ok := strings.CutPrefix(sub.Ref, "#/$defs/")
		if !ok || defs[name] == nil {
			return true
		}
		def := defs[name].CloneSchemas()
		def.Description = sub.Description
		*slot = def
		return true // the definition may refer to others
	})
	return s
}

// defName names the definition of the object schema key: its Go type's
// name, or a numbered one.
func defName(names map[string]string, key string, n int) string {
	return cmp.Or(names[key], fmt.Sprintf("object%d", n))
}

// walkSchemas calls f on each schema slot below *root (and on root
// itself), parents first, in a deterministic order; f may replace the
// schema in the slot, and returns whether to walk the schema now in it.
func walkSchemas(root **jsonschema.Schema, f func(slot **jsonschema.Schema) bool) {
	if *root == nil || !f(root) {
		return
	}
	s := *root
	for _, k := range sortedKeys(s.Defs) {
		d := s.Defs[k]
		walkSchemas(&d, f)
		s.Defs[k] = d
	}
	for _, k := range sortedKeys(s.Properties) {
		p := s.Properties[k]
		walkSchemas(&p, f)
		s.Properties[k] = p
	}
	walkSchemas(&s.Items, f)
	walkSchemas(&s.AdditionalProperties, f)
	for _, list := range [][]*jsonschema.Schema{s.PrefixItems, s.AnyOf, s.OneOf, s.AllOf} {
		for i := range list {
			walkSchemas(&list[i], f)
		}
	}
}

func sortedKeys(m map[string]*jsonschema.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// listedInput is the input schema as tools/list sends it: without
// additionalProperties: false. Eager clients (Gemini CLI, Cursor, VS Code)
// send every tool's schema with every request, and the constraint tells a
// model nothing the list of properties does not: a call with an argument
// the tool does not take is still refused, with the names it takes (see
// unknownArguments), since arguments are checked against the full schema.
func listedInput(in *jsonschema.Schema) (json.RawMessage, error) {
	s := in.CloneSchemas()
	walkSchemas(&s, func(slot **jsonschema.Schema) bool {
		if isFalseSchema((*slot).AdditionalProperties) {
			(*slot).AdditionalProperties = nil
		}
		return true
	})
	return json.Marshal(s)
}
