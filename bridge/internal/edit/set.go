package edit

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// A Set is a change to files computed by gopls, with the text of each
// file it applies to. It is the one representation of edits the tools
// share, so that diffs and writes are made in one place; From, its
// constructor from gopls's edits, refuses files outside the root.
type Set struct {
	gate  *place.Gate
	Files []*FileEdit // by path when made by From
}

// FileEdit is the edits to one file.
type FileEdit struct {
	Path    string // absolute, inside the root
	URI     string
	Before  string   // the text the edits apply to
	Sum     [32]byte // its SHA-256, which the file must still have to be written
	Created bool     // the file does not exist yet
	Edits   []protocol.TextEdit
}

// After applies the edits to the file's text.
func (fe *FileEdit) After() (string, error) { return Apply(fe.Before, fe.Edits) }

// NewSet returns an empty set whose paths g shows, for edits that do not
// come from a gopls workspace edit (a diagnostic's fix, shown as a diff).
func NewSet(g *place.Gate) *Set { return &Set{gate: g} }

// Add adds edits to the file at path, whose text is before; a file added
// earlier keeps the text it was added with.
func (s *Set) Add(path, before string, edits ...protocol.TextEdit) {
	for _, fe := range s.Files {
		if fe.Path == path {
			fe.Edits = append(fe.Edits, edits...)
			return
		}
	}
	s.Files = append(s.Files, &FileEdit{Path: path, Before: before, Edits: edits})
}

// WorkspaceEdit is an LSP WorkspaceEdit: gopls sends documentChanges
// (text edits per document, and file creations) or changes.
type WorkspaceEdit struct {
	Changes         map[string][]protocol.TextEdit `json:"changes"`
	DocumentChanges []json.RawMessage              `json:"documentChanges"`
}

// NonEmpty reports whether the edit changes anything. gopls sends an empty
// edit with actions whose work is done by a command (such as running go
// mod edit), which goplsmcp does not run.
func (we *WorkspaceEdit) NonEmpty() bool {
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

// Source is what From needs of its caller: the read gate, and the views
// of gopls and of the session that decide which text an edit applies to.
type Source struct {
	Gate *place.Gate
	// Foreign reports whether uri is another session's snippet, whose
	// changes are not the caller's business.
	Foreign func(uri string) bool
	// Document is the buffer gopls holds for uri, and its version.
	Document func(uri string) (text string, version int32, ok bool)
	// Changed reports whether the file at path changed on disk since
	// the disk epoch since, and whether that is known (see
	// lspclient.Client.ChangedSince); nil: never known.
	Changed func(path string, since uint64) (changed, known bool)
}

// Asked marks when gopls was asked for edits: the time, and the disk
// epoch then (see lspclient.Client.DiskEpoch). The zero Asked skips the
// check that a file on disk has not changed since.
type Asked struct {
	at    time.Time
	epoch uint64
}

// AskedAt is the mark of a request made at t, at disk epoch epoch.
func AskedAt(t time.Time, epoch uint64) Asked { return Asked{at: t, epoch: epoch} }

// From turns gopls's workspace edit into a set. Every file must be inside
// the root: goplsmcp proposes no edits to the standard library or the
// module cache.
//
// Each file's text is captured here, as the bytes the edits apply to: the
// buffer gopls holds, or the file on disk, which must not have changed
// since asked, when gopls was asked (a file saved while gopls computed
// may hold bytes it never saw). The zero asked skips that check.
func From(we *WorkspaceEdit, asked Asked, src Source) (*Set, error) {
	g := src.Gate
	s := &Set{gate: g}
	byURI := map[string]*FileEdit{}
	get := func(uri string) (*FileEdit, error) {
		if fe, ok := byURI[uri]; ok {
			return fe, nil
		}
		path, err := lspclient.URIPath(uri)
		if err != nil {
			return nil, fmt.Errorf("gopls proposed an edit to %s, which is not a file", render.Quote(uri))
		}
		if !place.Within(g.Root(), path) {
			return nil, fmt.Errorf("the change would edit %s, outside the workspace root; goplsmcp only proposes edits inside it", g.Display(path))
		}
		if !g.Confined(path) {
			return nil, fmt.Errorf("the change would edit %s, which leads outside the workspace root through a symbolic link; goplsmcp only proposes edits inside it", g.Display(path))
		}
		fe := &FileEdit{Path: path, URI: lspclient.FileURI(path)}
		byURI[uri] = fe
		s.Files = append(s.Files, fe)
		return fe, nil
	}
	for uri, edits := range we.Changes {
		if src.Foreign(uri) {
			// Another session's snippet uses what changes: not this
			// session's business.
			continue
		}
		fe, err := get(uri)
		if err != nil {
			return nil, err
		}
		fe.Edits = append(fe.Edits, edits...)
	}
	for _, raw := range we.DocumentChanges {
		var dc documentChange
		if err := json.Unmarshal(raw, &dc); err != nil {
			return nil, fmt.Errorf("decoding gopls's edit: %w", err)
		}
		if src.Foreign(dc.TextDocument.URI) || src.Foreign(dc.URI) {
			continue
		}
		switch dc.Kind {
		case "":
			fe, err := get(dc.TextDocument.URI)
			if err != nil {
				return nil, err
			}
			if v := dc.TextDocument.Version; v != nil && *v > 0 {
				if _, held, ok := src.Document(fe.URI); ok && held != *v {
					return nil, errors.New("the file changed while gopls computed the edits; retry the call")
				}
			}
			fe.Edits = append(fe.Edits, dc.Edits...)
		case "create":
			fe, err := get(dc.URI)
			if err != nil {
				return nil, err
			}
			fe.Created = true
		default:
			return nil, fmt.Errorf("the change would %s a file, which goplsmcp does not propose; do it by hand", dc.Kind)
		}
	}
	for _, fe := range s.Files {
		if fe.Created {
			continue
		}
		text, err := editedText(src, fe.Path, asked)
		if err != nil {
			return nil, err
		}
		fe.Before = text
		fe.Sum = sha256.Sum256([]byte(text))
	}
	slices.SortFunc(s.Files, func(x, y *FileEdit) int { return cmp.Compare(x.Path, y.Path) })
	return s, nil
}

// editedText is the text an edit to the file at path applies to: the
// buffer gopls holds for it, else the file on disk, read afresh (not from
// a cache) through the read gate, and refused if it changed since asked:
// as the watcher saw, where it sees every change to the file, else by its
// time, which may lie a little before the write that set it (see
// lspclient.ModifiedSince; a save just after gopls was asked could
// otherwise pass for one before, and the edits land on text gopls never
// saw).
func editedText(src Source, path string, asked Asked) (string, error) {
	if text, _, ok := src.Document(lspclient.FileURI(path)); ok {
		return text, nil
	}
	name := src.Gate.Display(path)
	data, fi, err := src.Gate.ReadFileInfo(path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s, which the change edits; nothing was written", name)
	}
	if !asked.at.IsZero() {
		changed, known := false, false
		if src.Changed != nil {
			changed, known = src.Changed(path, asked.epoch)
		}
		if !known {
			changed = lspclient.ModifiedSince(fi, asked.at)
		}
		if changed {
			return "", fmt.Errorf("%s changed on disk while gopls computed the edits, which may not fit it; nothing was written; call again", name)
		}
	}
	return string(data), nil
}

// Diff renders the set: how many edits in how many files, and the
// unified diff, with paths as the gate shows them (relative to the root).
// Creating a file with no text is one edit.
func (s *Set) Diff() (edits, files int, diff string, err error) {
	var sb strings.Builder
	for _, fe := range s.Files {
		name := s.gate.Display(fe.Path)
		after, err := fe.After()
		if err != nil {
			return 0, 0, "", err
		}
		edits += len(fe.Edits)
		if fe.Created && len(fe.Edits) == 0 {
			edits++ // creating the file is the edit
		}
		files++
		oldName := "a/" + name
		if fe.Created {
			oldName = "/dev/null"
		}
		sb.WriteString(UnifiedDiff(oldName, "b/"+name, fe.Before, after))
	}
	return edits, files, sb.String(), nil
}

// Write writes the set through w, the one write path: all or nothing,
// each file re-checked under its lock right before it is replaced. Once
// the writing was tried, tell is given the files written (see
// Writer.Write), also when it failed, so that gopls learns of them; a set
// whose edits do not apply fails before, and tell is not called.
func (s *Set) Write(w *Writer, tell func(written map[string]bool)) error {
	files := make([]File, 0, len(s.Files))
	for _, fe := range s.Files {
		after, err := fe.After()
		if err != nil {
			return err
		}
		files = append(files, File{Path: fe.Path, Name: s.gate.Display(fe.Path), Created: fe.Created, Sum: fe.Sum, After: after})
	}
	written, err := w.Write(files)
	tell(written)
	return err
}
