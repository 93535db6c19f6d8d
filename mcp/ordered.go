package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// An OrderedMap is a JSON object whose keys are data (file paths, package
// paths), kept in the order they were added. Structured results use it to
// group items under a key said once, which costs a model reading the JSON
// a few bytes per group where an array of {"key": ..., "items": [...]}
// objects costs twenty; encoding/json would sort a Go map's keys, and the
// order of a result (the best match first) is part of its meaning. Its
// output schema is an object whose every member has V's schema.
//
// The zero value is an empty map, marshaled as {}.
type OrderedMap[V any] struct {
	keys  []string
	vals  []V
	index map[string]int
}

// IsZero reports whether the map is empty, for the omitzero option of
// encoding/json.
func (m OrderedMap[V]) IsZero() bool { return len(m.keys) == 0 }

// Len returns the number of keys.
func (m *OrderedMap[V]) Len() int { return len(m.keys) }

// Keys returns the keys in order. The slice must not be modified.
func (m *OrderedMap[V]) Keys() []string { return m.keys }

// Get returns the value of key, and whether it is there.
func (m *OrderedMap[V]) Get(key string) (V, bool) {
	if i, ok := m.index[key]; ok {
		return m.vals[i], true
	}
	var zero V
	return zero, false
}

// Set sets the value of key, adding the key at the end if it is new.
func (m *OrderedMap[V]) Set(key string, v V) { *m.Ref(key) = v }

// Ref returns a pointer to the value of key, adding the key at the end
// with the zero value if it is new. The pointer is valid until the next
// key is added.
func (m *OrderedMap[V]) Ref(key string) *V {
	i, ok := m.index[key]
	if !ok {
		if m.index == nil {
			m.index = map[string]int{}
		}
		i = len(m.keys)
		m.index[key] = i
		m.keys = append(m.keys, key)
		var zero V
		m.vals = append(m.vals, zero)
	}
	return &m.vals[i]
}

// All calls f for each key and its value, in order.
func (m *OrderedMap[V]) All(f func(key string, v V)) {
	for i, k := range m.keys {
		f(k, m.vals[i])
	}
}

// MarshalJSON writes the members in order.
func (m OrderedMap[V]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(m.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object, keeping its members' order.
func (m *OrderedMap[V]) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("an ordered map must be a JSON object")
	}
	*m = OrderedMap[V]{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		var v V
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("member %q: %w", key, err)
		}
		m.Set(key, v)
	}
	_, err := dec.Token()
	return err
}

// orderedMapValue tells schema generation that the type is an ordered map
// of values of the returned type.
func (OrderedMap[V]) orderedMapValue() reflect.Type { return reflect.TypeFor[V]() }

// orderedMap is implemented by every OrderedMap type.
type orderedMap interface{ orderedMapValue() reflect.Type }

// orderedMapSchemas returns the schema of every OrderedMap type reachable
// from t, for jsonschema's TypeSchemas: an object whose members have the
// value type's schema.
func orderedMapSchemas(t reflect.Type) (map[reflect.Type]*jsonschema.Schema, error) {
	schemas := map[reflect.Type]*jsonschema.Schema{}
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type) error
	visit = func(t reflect.Type) error {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if seen[t] {
			return nil
		}
		seen[t] = true
		if om, ok := reflect.Zero(t).Interface().(orderedMap); ok {
			elem := om.orderedMapValue()
			if err := visit(elem); err != nil {
				return err
			}
			vs, err := jsonschema.ForType(elem, &jsonschema.ForOptions{TypeSchemas: schemas})
			if err != nil {
				return err
			}
			schemas[t] = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: vs}
			return nil
		}
		if t.Kind() == reflect.Struct {
			for i := range t.NumField() {
				if err := visit(t.Field(i).Type); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return schemas, visit(t)
}
