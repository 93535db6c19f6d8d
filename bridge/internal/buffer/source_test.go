package buffer_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// TestSourcePositions checks what a source says of 0-based lines and
// UTF-16 characters: a character may be one past a line's last, not two;
// the end is past the last character of the last line.
func TestSourcePositions(t *testing.T) {
	// "é" is one UTF-16 unit, "😀" two: the last line has 5.
	src := &buffer.Source{Lines: []string{"package a", "", `x"é😀`}}
	for _, tt := range []struct {
		line, char int
		want       string // "" or a fragment of the error
	}{
		{0, 0, ""},
		{0, 9, ""},
		{0, 10, "past the end of line 0, which has 9 UTF-16 code units"},
		{1, 0, ""},
		{2, 5, ""},
		{2, 6, "past the end of line 2, which has 5"},
		{3, 0, "line 3 is past the end of the file, which has lines 0 to 2"},
		{-1, 0, "must not be negative"},
		{0, -1, "must not be negative"},
	} {
		err := src.CheckPosition(tt.line, tt.char)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckPosition(%d, %d) = %v, want nil", tt.line, tt.char, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckPosition(%d, %d) = %v, want an error containing %q", tt.line, tt.char, err, tt.want)
		}
	}
	line, char := src.End()
	if diff := cmp.Diff([2]int{2, 5}, [2]int{line, char}); diff != "" {
		t.Errorf("End() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"package a", "", ""}, []string{src.Line(0), src.Line(-1), src.Line(3)}); diff != "" {
		t.Errorf("Line(0), Line(-1), Line(3) (-want +got):\n%s", diff)
	}
}

// TestBufferURI checks that only the buffers a later call must name by
// uri (snippets and overlays) report one.
func TestBufferURI(t *testing.T) {
	got := map[buffer.Kind]string{}
	for _, k := range []buffer.Kind{buffer.FromDisk, buffer.FromOverlay, buffer.FromSnippet, buffer.AsContext} {
		got[k] = (&buffer.Source{URI: "file:///w/a.go", Kind: k}).BufferURI()
	}
	want := map[buffer.Kind]string{buffer.FromDisk: "", buffer.FromOverlay: "file:///w/a.go", buffer.FromSnippet: "file:///w/a.go", buffer.AsContext: ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BufferURI by kind (-want +got):\n%s", diff)
	}
	if u := (*buffer.Source)(nil).BufferURI(); u != "" {
		t.Errorf("a nil source's BufferURI = %q, want none", u)
	}
}

// TestDocCheck checks the combinations of a Doc's fields and the bound
// on its text.
func TestDocCheck(t *testing.T) {
	for _, tt := range []struct {
		doc  buffer.Doc
		want string // "" or a fragment of the error
	}{
		{buffer.Doc{File: "a.go"}, ""},
		{buffer.Doc{File: "a.go", Text: "package a"}, ""},
		{buffer.Doc{Text: "package a"}, ""},
		{buffer.Doc{URI: "file:///w/a.go"}, ""},
		{buffer.Doc{}, "say which code"},
		{buffer.Doc{File: "a.go", URI: "file:///w/a.go"}, "pass file or uri, not both"},
		{buffer.Doc{URI: "file:///w/a.go", Text: "package a"}, "not with uri"},
		{buffer.Doc{Text: "package \xff"}, "not valid UTF-8"},
		{buffer.Doc{Text: "package éé"}, "text has 10 characters, more than the 9 allowed"},
	} {
		err := tt.doc.Check(9)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: Check = %v, want nil", tt.doc, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: Check = %v, want an error containing %q", tt.doc, err, tt.want)
		}
	}
}

// TestForeign checks that a session sees its own snippets and no other
// session's, by uri, path, location and import path, and that files
// outside the scratch directory are never foreign.
func TestForeign(t *testing.T) {
	root := t.TempDir()
	s := buffer.NewSet(buffer.SetConfig{Reads: place.New(root, func() (string, string) { return "", "" })})
	snippet := func(n string) string {
		return filepath.Join(root, filepath.FromSlash(buffer.ScratchDir), n, "snippet.go")
	}
	mine, theirs := buffer.NewSession("a"), buffer.NewSession("b")
	mine.Snippets.Add(lspclient.FileURI(snippet("1")))
	theirs.Snippets.Add(lspclient.FileURI(snippet("2")))
	c := buffer.Caller{Session: mine, Gated: true}

	got := map[string]bool{
		"own snippet":          s.Foreign(c, lspclient.FileURI(snippet("1"))),
		"other snippet":        s.Foreign(c, lspclient.FileURI(snippet("2"))),
		"workspace file":       s.Foreign(c, lspclient.FileURI(filepath.Join(root, "a.go"))),
		"own snippet path":     s.ForeignPath(c, snippet("1")),
		"other snippet path":   s.ForeignPath(c, snippet("2")),
		"own package":          s.ForeignPackage(c, "example.com/m/.goplsmcp/scratch/1"),
		"other package":        s.ForeignPackage(c, "example.com/m/.goplsmcp/scratch/2"),
		"workspace package":    s.ForeignPackage(c, "example.com/m/sub"),
		"below a scratch pkg":  s.ForeignPackage(c, "example.com/m/.goplsmcp/scratch/2/x"),
		"scratch outside root": s.Foreign(c, "file:///elsewhere/.goplsmcp/scratch/2/snippet.go"),
	}
	want := map[string]bool{
		"own snippet": false, "other snippet": true, "workspace file": false,
		"own snippet path": false, "other snippet path": true,
		"own package": false, "other package": true, "workspace package": false, "below a scratch pkg": false,
		"scratch outside root": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Foreign (-want +got):\n%s", diff)
	}

	locs := []protocol.Location{
		{URI: protocol.DocumentURI(lspclient.FileURI(snippet("2")))},
		{URI: protocol.DocumentURI(lspclient.FileURI(filepath.Join(root, "a.go")))},
		{URI: protocol.DocumentURI(lspclient.FileURI(snippet("1")))},
	}
	kept := s.DropForeign(c, locs)
	if diff := cmp.Diff([]protocol.Location{
		{URI: protocol.DocumentURI(lspclient.FileURI(filepath.Join(root, "a.go")))},
		{URI: protocol.DocumentURI(lspclient.FileURI(snippet("1")))},
	}, kept); diff != "" {
		t.Errorf("DropForeign (-want +got):\n%s", diff)
	}
}
