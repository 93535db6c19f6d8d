package bridge

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// defaultReferenceLimit bounds the references listed when no limit is given.
const defaultReferenceLimit = 100

// ReferencesInput is the input of go_symbol_references.
type ReferencesInput struct {
	At
	IncludeDeclaration bool `json:"includeDeclaration,omitempty" jsonschema:"list the declaration too"`
	Limit              int  `json:"limit,omitempty" jsonschema:"default 100"`
}

// ReferencesOutput is the result of go_symbol_references.
type ReferencesOutput struct {
	URI       string     `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer the call named, for later calls"`
	Note      string     `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Symbol    string     `json:"symbol" jsonschema:"the identifier whose references these are"`
	Total     int        `json:"total" jsonschema:"number of references found"`
	Truncated bool       `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Files     []FileRefs `json:"files" jsonschema:"references grouped by file"`
}

// FileRefs are the references in one file.
type FileRefs struct {
	File  string `json:"file"`
	Count int    `json:"count" jsonschema:"references in this file, listed or not"`
	Refs  []Ref  `json:"refs,omitempty"`
}

// Ref is one reference within a file.
type Ref struct {
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Text      string `json:"text,omitempty"`
}

// Render implements mcp.Renderer: a count line, then each file's path
// followed by its references as line:character: source line, and, for a
// cut list, how many more each file has.
func (o *ReferencesOutput) Render() string {
	var b strings.Builder
	if o.URI != "" {
		b.WriteString("buffer " + o.URI + "\n")
	}
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	fmt.Fprintf(&b, "%s to %s in %s", plural(o.Total, "reference"), o.Symbol, plural(len(o.Files), "file"))
	if o.Truncated {
		b.WriteString(" (list truncated; raise limit to see more)")
	}
	b.WriteString("\n")
	for _, f := range o.Files {
		if len(f.Refs) > 0 {
			b.WriteString(f.File + "\n")
		}
		for _, r := range f.Refs {
			fmt.Fprintf(&b, "%d:%d: %s\n", r.Line, r.Character, r.Text)
		}
		if len(f.Refs) < f.Count {
			fmt.Fprintf(&b, "%s: %d more\n", f.File, f.Count-len(f.Refs))
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (b *Bridge) addSymbolReferences(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_symbol_references",
		Title:       "Find references",
		Description: "Every reference to a symbol across the workspace, grouped by file, with source lines.",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass a smaller limit (every file keeps its count)",
	}, b.references)
}

func (b *Bridge) references(ctx context.Context, in *ReferencesInput) (*ReferencesOutput, error) {
	// References in packages that just appeared on disk count too.
	ctx = lspclient.WorkspaceWide(ctx)
	limit := in.Limit
	if limit < 0 {
		return nil, fmt.Errorf("limit must be positive")
	}
	if limit == 0 {
		limit = defaultReferenceLimit
	}
	t, err := b.resolve(ctx, in.At)
	if err != nil {
		return nil, err
	}
	defer t.release()
	params := t.position()
	params["context"] = map[string]any{"includeDeclaration": in.IncludeDeclaration}
	var locs []protocol.Location
	if err := b.client.Call(ctx, "textDocument/references", params, &locs); err != nil {
		return nil, goplsError(err)
	}
	locs = b.dropForeign(ctx, locs)
	slices.SortFunc(locs, func(a, b protocol.Location) int {
		return cmp.Or(cmp.Compare(a.URI, b.URI),
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
			cmp.Compare(a.Range.Start.Character, b.Range.Start.Character))
	})
	out := &ReferencesOutput{URI: t.buffer, Note: t.note, Symbol: identAt(t.src.line(t.line), t.character), Total: len(locs), Files: []FileRefs{}}
	lines := b.newLineCache()
	listed := 0
	for _, l := range locs {
		file := b.displayURI(string(l.URI))
		if n := len(out.Files); n == 0 || out.Files[n-1].File != file {
			out.Files = append(out.Files, FileRefs{File: file})
		}
		f := &out.Files[len(out.Files)-1]
		f.Count++
		if listed == limit {
			out.Truncated = true
			continue
		}
		listed++
		loc := lines.loc(l)
		f.Refs = append(f.Refs, Ref{Line: loc.Line, Character: loc.Character, Text: loc.Text})
	}
	return out, nil
}

// identAt returns the identifier that covers UTF-16 column char of line.
func identAt(line string, char int) string {
	off := byteOffset(line, char)
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	start, end := off, off
	for start > 0 && isWord(line[start-1]) {
		start--
	}
	for end < len(line) && isWord(line[end]) {
		end++
	}
	return line[start:end]
}
