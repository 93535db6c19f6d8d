package bridge

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// Position is a place in a file: 0-based line and UTF-16 character.
type Position struct {
	Line      int `json:"line" jsonschema:"0-based line"`
	Character int `json:"character" jsonschema:"0-based UTF-16 column"`
}

// Range is the text between two positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Edit replaces the text of a range of a file with new text. Ranges refer
// to the file before any of the edits.
type Edit struct {
	File    string `json:"file" jsonschema:"path relative to the workspace root"`
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// Changes are changes to files, as a unified diff: it says all the edits
// say, with context, and git apply takes it. They are proposed, and
// written only with --allow-write and apply: true.
type Changes struct {
	Applied *bool  `json:"applied,omitempty" jsonschema:"whether the edits were written (apply: true with --allow-write); false when only proposed; left out when there is nothing to change"`
	Edits   int    `json:"edits" jsonschema:"number of edits"`
	Files   int    `json:"files,omitempty" jsonschema:"number of files they change"`
	Diff    string `json:"diff,omitempty" jsonschema:"the edits as a unified diff (git apply -p1 ready)"`
}

// render is the lean text of changes: a line that says whether they were
// written, so that a model never takes a proposal for a done change, then
// the unified diff, which says everything the edits say.
func (c *Changes) render(nothing string) string {
	if c.Edits == 0 {
		return nothing
	}
	state := "not applied"
	if c.Applied != nil && *c.Applied {
		state = "applied"
	}
	return fmt.Sprintf("%s: %s in %s\n%s", state, render.Plural(c.Edits, "edit"), render.Plural(c.Files, "file"), strings.TrimSuffix(c.Diff, "\n"))
}

// An editSet is a change to files computed by gopls, with the text of
// each file it applies to. It is the one representation of edits the
// tools share, so that diffs and writes are made in one place;
// editsFrom, its only constructor, refuses files outside the root.
type editSet struct {
	files []*fileEdit // by path
}

// fileEdit is the edits to one file.
type fileEdit struct {
	path    string // absolute, inside the root
	uri     string
	before  string   // the text the edits apply to
	sum     [32]byte // its SHA-256, which the file must still have to be written
	created bool     // the file does not exist yet
	edits   []protocol.TextEdit
}

// workspaceEdit is an LSP WorkspaceEdit: gopls sends documentChanges
// (text edits per document, and file creations) or changes.
type workspaceEdit struct {
	Changes         map[string][]protocol.TextEdit `json:"changes"`
	DocumentChanges []json.RawMessage              `json:"documentChanges"`
}

// nonEmpty reports whether the edit changes anything. gopls sends an empty
// edit with actions whose work is done by a command (such as running go
// mod edit), which goplsmcp does not run.
func (we *workspaceEdit) nonEmpty() bool {
	if we == nil {
		return false
	}
	for _, edits := range we.Changes {
		if len(edits) > 0 {
			return true
		}
	}
	for _, raw := range we.DocumentChanges {
		var dc documentChange
		if json.Unmarshal(raw, &dc) != nil || dc.Kind != "" || len(dc.Edits) > 0 {
			return true
		}
	}
	return false
}

// documentChange is one entry of documentChanges: a TextDocumentEdit, or
// a resource operation with a kind.
type documentChange struct {
	Kind         string `json:"kind"`
	URI          string `json:"uri"`
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int32 `json:"version"`
	} `json:"textDocument"`
	Edits []protocol.TextEdit `json:"edits"`
}

// editsFrom turns gopls's workspace edit into an edit set. Every file must
// be inside the root: goplsmcp proposes no edits to the standard library
// or the module cache.
//
// Each file's text is captured here, as the bytes the edits apply to: the
// buffer gopls holds, or the file on disk, which must not have changed
// since asked, when gopls was asked (a file saved while gopls computed
// may hold bytes it never saw). The zero asked skips that check.
func (b *Bridge) editsFrom(ctx context.Context, we *workspaceEdit, asked time.Time) (*editSet, error) {
	es := &editSet{}
	byURI := map[string]*fileEdit{}
	get := func(uri string) (*fileEdit, error) {
		if fe, ok := byURI[uri]; ok {
			return fe, nil
		}
		path, err := lspclient.URIPath(uri)
		if err != nil {
			return nil, fmt.Errorf("gopls proposed an edit to %s, which is not a file", render.Quote(uri))
		}
		if !iplace.Within(b.root, path) {
			return nil, fmt.Errorf("the change would edit %s, outside the workspace root; goplsmcp only proposes edits inside it", b.displayPath(path))
		}
		if !b.reads.Confined(path) {
			return nil, fmt.Errorf("the change would edit %s, which leads outside the workspace root through a symbolic link; goplsmcp only proposes edits inside it", b.displayPath(path))
		}
		fe := &fileEdit{path: path, uri: lspclient.FileURI(path)}
		byURI[uri] = fe
		es.files = append(es.files, fe)
		return fe, nil
	}
	for uri, edits := range we.Changes {
		if b.foreign(ctx, uri) {
			// Another session's snippet uses what changes: not this
			// session's business.
			continue
		}
		fe, err := get(uri)
		if err != nil {
			return nil, err
		}
		fe.edits = append(fe.edits, edits...)
	}
	for _, raw := range we.DocumentChanges {
		var dc documentChange
		if err := json.Unmarshal(raw, &dc); err != nil {
			return nil, fmt.Errorf("decoding gopls's edit: %w", err)
		}
		if b.foreign(ctx, dc.TextDocument.URI) || b.foreign(ctx, dc.URI) {
			continue
		}
		switch dc.Kind {
		case "":
			fe, err := get(dc.TextDocument.URI)
			if err != nil {
				return nil, err
			}
			if v := dc.TextDocument.Version; v != nil && *v > 0 {
				if _, held, ok := b.client.Document(fe.uri); ok && held != *v {
					return nil, errors.New("the file changed while gopls computed the edits; retry the call")
				}
			}
			fe.edits = append(fe.edits, dc.Edits...)
		case "create":
			fe, err := get(dc.URI)
			if err != nil {
				return nil, err
			}
			fe.created = true
		default:
			return nil, fmt.Errorf("the change would %s a file, which goplsmcp does not propose; do it by hand", dc.Kind)
		}
	}
	for _, fe := range es.files {
		if fe.created {
			continue
		}
		text, err := b.editedText(fe.path, asked)
		if err != nil {
			return nil, err
		}
		fe.before = text
		fe.sum = sha256.Sum256([]byte(text))
	}
	slices.SortFunc(es.files, func(x, y *fileEdit) int { return cmp.Compare(x.path, y.path) })
	return es, nil
}

// after applies the edits to the file's text.
func (fe *fileEdit) after() (string, error) { return edit.Apply(fe.before, fe.edits) }

// changes renders the set for a result: how many edits in how many
// files, and the unified diff, with paths relative to the root.
func (b *Bridge) changes(es *editSet) (Changes, error) {
	var out Changes
	var diff strings.Builder
	for _, fe := range es.files {
		name := b.displayPath(fe.path)
		after, err := fe.after()
		if err != nil {
			return Changes{}, err
		}
		out.Edits += len(fe.edits)
		if fe.created && len(fe.edits) == 0 {
			out.Edits++ // creating the file is the edit
		}
		out.Files++
		oldName := "a/" + name
		if fe.created {
			oldName = "/dev/null"
		}
		diff.WriteString(edit.UnifiedDiff(oldName, "b/"+name, fe.before, after))
	}
	if out.Edits > 0 {
		out.Applied = new(bool)
	}
	out.Diff = diff.String()
	return out, nil
}

// editList lists the edits of es by file and position, with paths
// relative to the root.
func (b *Bridge) editList(es *editSet) []Edit {
	var out []Edit
	for _, fe := range es.files {
		name := b.displayPath(fe.path)
		edits := slices.Clone(fe.edits)
		slices.SortStableFunc(edits, func(x, y protocol.TextEdit) int { return iplace.ComparePos(x.Range.Start, y.Range.Start) })
		for _, e := range edits {
			out = append(out, Edit{File: name, NewText: e.NewText, Range: Range{
				Start: Position{Line: int(e.Range.Start.Line), Character: int(e.Range.Start.Character)},
				End:   Position{Line: int(e.Range.End.Line), Character: int(e.Range.End.Character)},
			}})
		}
	}
	return out
}

// String renders an edit on one line: file:line:char-line:char "new text".
func (e Edit) String() string {
	return fmt.Sprintf("%s:%d:%d-%d:%d %q", e.File, e.Range.Start.Line, e.Range.Start.Character,
		e.Range.End.Line, e.Range.End.Character, e.NewText)
}

// editedText is the text an edit to the file at path applies to: the
// buffer gopls holds for it, else the file on disk, read afresh (not from
// the file cache) through the read gate, and refused if it was modified
// at or after asked.
func (b *Bridge) editedText(path string, asked time.Time) (string, error) {
	if text, _, ok := b.client.Document(lspclient.FileURI(path)); ok {
		return text, nil
	}
	name := b.displayPath(path)
	data, fi, err := b.reads.ReadFileInfo(path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s, which the change edits; nothing was written", name)
	}
	if !asked.IsZero() && !fi.ModTime().Before(asked) {
		return "", fmt.Errorf("%s changed on disk while gopls computed the edits, which may not fit it; nothing was written; call again", name)
	}
	return string(data), nil
}
