package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// callNotes are the notes a tool call's handler or middleware adds to its
// answer (see [AddNote]).
type callNotes struct {
	mu   sync.Mutex
	list []string
}

type notesKey struct{}

// AddNote adds a line to the text of the answer of the tool call whose
// context is ctx, after what the tool rendered, and the same line to the
// notes member of its structured content (a list of strings, made when
// the output has none), so that a client that shows its model only one
// of the two says it too. Outside a tool call it does nothing.
func AddNote(ctx context.Context, note string) {
	n, ok := ctx.Value(notesKey{}).(*callNotes)
	if !ok {
		return
	}
	n.mu.Lock()
	n.list = append(n.list, note)
	n.mu.Unlock()
}

// withNotes gives a tool call's context a place for its notes.
func withNotes(ctx context.Context) (context.Context, *callNotes) {
	n := &callNotes{}
	return context.WithValue(ctx, notesKey{}, n), n
}

// lines is the notes, in the order they were added.
func (n *callNotes) lines() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.list)
}

// notesMember is the member of a structured result that holds its notes.
const notesMember = "notes"

// notesInto appends notes to the notes member of obj, a JSON object,
// keeping the rest of it byte for byte: at the end of the list when obj
// has one, as a new last member when it has none.
func notesInto(obj []byte, notes []string) (json.RawMessage, error) {
	start, end, err := memberValue(obj, notesMember)
	if err != nil {
		return nil, err
	}
	if start < 0 {
		return withMember(obj, notesMember, notes)
	}
	var list []string
	if err := json.Unmarshal(obj[start:end], &list); err != nil {
		return nil, fmt.Errorf("the structured result's %s is not a list of strings: %w", notesMember, err)
	}
	v, err := json.Marshal(append(list, notes...))
	if err != nil {
		return nil, err
	}
	return slices.Concat(obj[:start], v, obj[end:]), nil
}

// memberValue finds the value of obj's top-level member key: its start
// and end offsets, or -1 when obj has no such member.
func memberValue(obj []byte, key string) (start, end int, err error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, errors.New("the structured result is not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, err
		}
		if name, _ := t.(string); name == key {
			end := int(dec.InputOffset())
			return end - len(raw), end, nil
		}
	}
	return -1, -1, nil
}
