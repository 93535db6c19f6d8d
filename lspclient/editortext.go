package lspclient

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// A textChange is one of a textDocument/didChange's contentChanges: a
// range replaced, or (no range) the whole text.
type textChange struct {
	Range *struct {
		Start textPos `json:"start"`
		End   textPos `json:"end"`
	} `json:"range"`
	Text string `json:"text"`
}

type textPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// ApplyChanges returns text with an LSP didChange's contentChanges (a JSON
// array) applied in order, positions counted in UTF-16 code units as
// gopls negotiates them with every client.
func ApplyChanges(text string, changes json.RawMessage) (string, error) {
	var cs []textChange
	if err := json.Unmarshal(changes, &cs); err != nil {
		return "", fmt.Errorf("reading contentChanges: %w", err)
	}
	for _, ch := range cs {
		if ch.Range == nil {
			text = ch.Text
			continue
		}
		start, err := utf16Offset(text, ch.Range.Start)
		if err != nil {
			return "", err
		}
		end, err := utf16Offset(text, ch.Range.End)
		if err != nil {
			return "", err
		}
		if end < start {
			return "", fmt.Errorf("change range ends before it starts")
		}
		text = text[:start] + ch.Text + text[end:]
	}
	return text, nil
}

// utf16Offset is the byte offset of an LSP position in text. A character
// past the end of its line means the line's end, as LSP says.
func utf16Offset(text string, p textPos) (int, error) {
	off := 0
	for line := 0; line < p.Line; line++ {
		i := indexByte(text[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("position line %d is past the end of the text", p.Line)
		}
		off += i + 1
	}
	units := 0
	for off < len(text) && text[off] != '\n' && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:])
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		off += size
	}
	return off, nil
}

func indexByte(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}
