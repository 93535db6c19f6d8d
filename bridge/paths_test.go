package bridge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// confinementFixture is a root with every kind of link that could lead
// out of it, and a directory outside it that must never be reached.
type confinementFixture struct {
	root, outside string
	b             *Bridge
}

func newConfinementFixture(t *testing.T) *confinementFixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmp, "root")
	outside := filepath.Join(tmp, "outside")
	for name, data := range map[string]string{
		"root/a.go":             "package a\n",
		"root/sub/b.go":         "package sub\n",
		"root/notes.txt":        "notes\n",
		"outside/secret.go":     "package secret\n",
		"outside/pkg/p.go":      "package pkg\n",
		"root/.goplsmcp/keep":   "",
		"root/deep/er/still.go": "package er\n",
	} {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"root/out.go":        "../outside/secret.go", // a file link leading out
		"root/outdir":        "../outside",           // a directory link leading out
		"root/dangling":      "../outside/missing",   // a dangling link leading out
		"root/sub/alias.go":  "../a.go",              // a link inside: fine
		"root/subalias":      "sub",                  // a directory link inside: fine
		"root/loop":          "loop",                 // a link to itself
		"root/deep/er/up.go": "../../../outside/secret.go",
	} {
		if err := os.Symlink(target, filepath.Join(tmp, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(root, "pipe.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Bridge{root: root}
	b.initReads()
	return &confinementFixture{root: root, outside: outside, b: b}
}

// TestResolveFile checks every file argument: what is inside the root
// resolves to its real path; what is not is refused with a sentence that
// says why.
func TestResolveFile(t *testing.T) {
	f := newConfinementFixture(t)
	goroot := goEnvDir(t, f.b, "goroot")
	tests := []struct {
		file string
		want string // the resolved path relative to the root, or "error: fragment"
	}{
		{"a.go", "a.go"},
		{"./sub/../a.go", "a.go"},
		{f.root + "/sub/b.go", "sub/b.go"},
		{"sub/alias.go", "a.go"},
		{"subalias/b.go", "sub/b.go"},
		{"notes.txt", "notes.txt"},
		{"", "error: file is empty"},
		{"../outside/secret.go", "error: is outside the workspace root; pass a path inside"},
		{"sub/../../outside/secret.go", "error: is outside the workspace root"},
		{f.outside + "/secret.go", "error: is outside the workspace root"},
		{"/etc/passwd", "error: is outside the workspace root"},
		{"out.go", "error: leads outside the workspace root through a symbolic link"},
		{"outdir/secret.go", "error: leads outside the workspace root through a symbolic link"},
		{"outdir/pkg/p.go", "error: leads outside the workspace root through a symbolic link"},
		{"deep/er/up.go", "error: leads outside the workspace root through a symbolic link"},
		{"dangling", "error: is a symbolic link that leads nowhere"},
		{"dangling/x.go", "error: lies under a symbolic link that leads nowhere"},
		{"loop", "error: cannot be resolved"},
		{"missing.go", "error: does not exist; paths are relative to the workspace root"},
		{"sub", "error: is a directory"},
		{".", "error: is a directory"},
		{"pipe.go", "error: is not a regular file"},
		{"a.go/x.go", "error: cannot be resolved: not a directory"},
		{"a\x00.go", "error: control characters"},
		{"a.go\n", "error: control characters"},
		{"a\u0085.go", "error: control characters"},
		{"a\x1b[2J.go", "error: control characters"},
		{"\xff.go", "error: not valid UTF-8"},
		{strings.Repeat("a/", 2100) + "x.go", "error: longer than 4096 bytes"},
		{`C:\Windows\x.go`, "error: is a Windows path"},
		{"C:/x.go", "error: is a Windows path"},
		{"c:x.go", "error: is a Windows path"},
		{`\\server\share\x.go`, "error: is a Windows path"},
		{`sub\b.go`, "error: contains a backslash"},
		{"%2e%2e/outside/secret.go", "error: percent-encoding"},
		{"sub%2fb.go", "error: percent-encoding"},
		{"sub%2Fb.go", "error: percent-encoding"},
		{"%00.go", "error: percent-encoding"},
		{"file://" + f.root + "/a.go", "error: is a URI, not a path; pass it as uri"},
		{"http://example.com/a.go", "error: is a URI"},
		{"$GOROOT/src/fmt/print.go", "error: read-only context"},
		{"$GOMODCACHE/golang.org/x/tools@v0.1.0/go.mod", "error: read-only context"},
		{"$HOME/x.go", "error: which is not expanded"},
		{"~/x.go", "error: which is not expanded"},
	}
	if goroot != "" {
		tests = append(tests, struct{ file, want string }{goroot + "/src/fmt/print.go", "error: is in the Go installation ($GOROOT), outside the workspace root: such code is read-only context"})
	}
	for _, tt := range tests {
		got, err := f.b.resolveFile(tt.file)
		checkResolved(t, "resolveFile", tt.file, f.root, got, err, tt.want)
	}
}

// TestResolveNewFile checks the file of unsaved text, which may not exist
// yet: its nearest existing directory must be inside the root, reached
// through no link leading out or nowhere.
func TestResolveNewFile(t *testing.T) {
	f := newConfinementFixture(t)
	for _, tt := range []struct{ file, want string }{
		{"a.go", "a.go"},
		{"new.go", "new.go"},
		{"sub/new.go", "sub/new.go"},
		{"brand/new/dir/x.go", "brand/new/dir/x.go"},
		{"subalias/new.go", "sub/new.go"},
		{"subalias/more/new.go", "sub/more/new.go"},
		{"new.txt", "error: must be for a .go file"},
		{"outdir/new.go", "error: leads outside the workspace root through a symbolic link"},
		{"outdir/more/new.go", "error: leads outside the workspace root through a symbolic link"},
		{"dangling/new.go", "error: lies under a symbolic link that leads nowhere"},
		{"dangling/more/new.go", "error: lies under a symbolic link that leads nowhere"},
		{"out.go", "error: leads outside the workspace root through a symbolic link"},
		{"loop/new.go", "error: cannot be resolved"},
		{"a.go/new.go", "error: cannot be resolved: not a directory"},
		{"../new.go", "error: is outside the workspace root"},
		{"pipe.go", "error: is not a regular file"},
		{"%2e%2e/new.go", "error: percent-encoding"},
	} {
		got, err := f.b.resolveNewFile(tt.file)
		checkResolved(t, "resolveNewFile", tt.file, f.root, got, err, tt.want)
	}
}

// TestResolveURI checks uri arguments as text: only a file:// URI of a
// path inside the root, as results give them, passes.
func TestResolveURI(t *testing.T) {
	f := newConfinementFixture(t)
	r := "file://" + f.root
	for _, tt := range []struct{ uri, want string }{
		{r + "/a.go", "a.go"},
		{"file://localhost" + f.root + "/a.go", "a.go"},
		{r + "/sub/../a.go", "a.go"},
		{r + "/new%20file.go", "new file.go"},
		{r + "/out.go", "out.go"}, // as text; its link is checked when opened
		{"file:///etc/passwd", "error: is outside the workspace root; pass a file:// URI inside"},
		{r + "/../outside/secret.go", "error: is outside the workspace root"},
		{r + "/%2e%2e/outside/secret.go", "error: percent-encodes"},
		{r + "/%2E%2E/outside/secret.go", "error: percent-encodes"},
		{r + "/sub%2fb.go", "error: percent-encodes"},
		{r + "/sub%5cb.go", "error: percent-encodes"},
		{r + "/a%00.go", "error: percent-encodes"},
		{r + "/a%0a.go", "error: percent-encodes"},
		{r + "/%ff.go", "error: invalid UTF-8"},
		{r + "/a%C2%85.go", "error: control characters"},
		{r + "/a.go?x=1", "error: has a query or fragment"},
		{r + "/a.go?", "error: has a query or fragment"},
		{r + "/a.go#L1", "error: has a query or fragment"},
		{"file://evil.example" + f.root + "/a.go", "error: names a host"},
		{"file://user@" + f.root + "/a.go", "error: names a host"},
		{"file://user@localhost" + f.root + "/a.go", "error: names a host"},
		{"http://example.com" + f.root + "/a.go", "error: is not a file:// URI"},
		{"untitled:Untitled-1", "error: is not a file:// URI"},
		{"FILE:///etc/passwd", "error: is outside the workspace root"},
		{f.root + "/a.go", "error: is not a file:// URI"},
		{"file:a.go", "error: is not an absolute file:// URI"},
		{"file:", "error: is not an absolute file:// URI"},
		{"file://", "error: is not an absolute file:// URI"},
		{"file:///C:/x.go", "error: is outside the workspace root"},
		{r + `/sub\b.go`, "error: holds a backslash"},
		{r + "/a\x00.go", "error: control characters"},
		{r + "/a.go\n", "error: control characters"},
		{"file://" + strings.Repeat("/a", 2100), "error: longer than 4096 bytes"},
		{"%zz", "error: is not a valid URI"},
	} {
		got, err := f.b.resolveURI(tt.uri)
		checkResolved(t, "resolveURI", tt.uri, f.root, got, err, tt.want)
	}
}

// TestConfined checks the rule for paths gopls reports: a workspace file
// (opened in gopls, given edits) only if inside the root through its
// links.
func TestConfined(t *testing.T) {
	f := newConfinementFixture(t)
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"a.go", true},
		{"sub/alias.go", true},
		{"sub/new.go", true},
		{"brand/new.go", true},
		{"out.go", false},
		{"outdir/secret.go", false},
		{"outdir/new.go", false},
		{"dangling", false},
		{"dangling/new.go", false},
		{"deep/er/up.go", false},
		{"../outside/secret.go", false},
	} {
		p := filepath.Join(f.root, filepath.FromSlash(tt.path))
		if got := f.b.confined(p); got != tt.want {
			t.Errorf("confined(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if f.b.confined("relative/a.go") {
		t.Error("confined accepts a relative path")
	}
}

// TestImportPathArg checks that go_package_api's import paths cannot name
// a directory, a pattern or a flag.
func TestImportPathArg(t *testing.T) {
	for _, tt := range []struct{ arg, want string }{
		{"fmt", "fmt"},
		{"net/http", "net/http"},
		{`"net/http"`, "net/http"},
		{" example.com/m/store ", "example.com/m/store"},
		{"golang.org/x/tools/gopls", "golang.org/x/tools/gopls"},
		{"example.com/m/v2+incompatible~x_y", "example.com/m/v2+incompatible~x_y"},
		{"", "error: it is empty"},
		{"../shapes", "error: an element starts with a dot"},
		{"./shapes", "error: an element starts with a dot"},
		{"...", "error: an element starts with a dot"},
		{"net/...", "error: an element starts with a dot"},
		{"a/.hidden", "error: an element starts with a dot"},
		{"/etc", "error: it has an empty element"},
		{"a//b", "error: it has an empty element"},
		{"net/", "error: it has an empty element"},
		{"-toolexec=evil", "error: it starts with a dash"},
		{"C:/x", "error: only ASCII letters"},
		{`a\b`, "error: only ASCII letters"},
		{"%2e%2e/x", "error: only ASCII letters"},
		{"fmt\x00", "error: only ASCII letters"},
		{"fmt@latest", "error: only ASCII letters"},
		{"net/http#x", "error: only ASCII letters"},
		{"пакет", "error: only ASCII letters"},
		{strings.Repeat("a", 600), "error: it is too long"},
	} {
		got, err := importPathArg(tt.arg)
		switch {
		case strings.HasPrefix(tt.want, "error: "):
			if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(tt.want, "error: ")) {
				t.Errorf("importPathArg(%q) = %q, %v; want an error containing %q", tt.arg, got, err, strings.TrimPrefix(tt.want, "error: "))
			} else if !strings.Contains(err.Error(), "is not an import path") {
				t.Errorf("importPathArg(%q): %v", tt.arg, err)
			}
		case err != nil || got != tt.want:
			t.Errorf("importPathArg(%q) = %q, %v; want %q", tt.arg, got, err, tt.want)
		}
	}
}

// TestQuote checks the shortening of echoed client strings.
func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"main.go", `"main.go"`},
		{strings.Repeat("é", 100), `"` + strings.Repeat("é", 80) + `…"`},
		{"a\x00b\nc\x1bd\u0085e\x7f", `"a␀b␊c␛d\\u0085e␡"`},
		{"\u202eevil", `"\u202eevil"`},
	} {
		if diff := cmp.Diff(tt.want, quote(tt.in)); diff != "" {
			t.Errorf("quote(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func checkResolved(t *testing.T, fn, arg, root, got string, err error, want string) {
	t.Helper()
	if frag, ok := strings.CutPrefix(want, "error: "); ok {
		if err == nil {
			t.Errorf("%s(%.60q) = %s, want an error containing %q", fn, arg, got, frag)
			return
		}
		if !strings.Contains(err.Error(), frag) {
			t.Errorf("%s(%.60q): %v\nwant an error containing %q", fn, arg, err, frag)
		}
		if strings.Count(err.Error(), "\n") > 0 || len([]rune(err.Error())) > 400 {
			t.Errorf("%s(%.60q): the error is not one short line: %q", fn, arg, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s(%.60q): %v, want %s", fn, arg, err, want)
		return
	}
	if wantPath := filepath.Join(root, filepath.FromSlash(want)); got != wantPath {
		t.Errorf("%s(%.60q) = %s, want %s", fn, arg, got, wantPath)
	}
}

// goEnvDir is the bridge's GOROOT ("goroot") or GOMODCACHE.
func goEnvDir(t *testing.T, b *Bridge, which string) string {
	t.Helper()
	goroot, modcache := b.env.Dirs()
	if which == "goroot" {
		return goroot
	}
	return modcache
}

// TestBufferPath checks go_close's file argument: named as buffers are
// opened, never through a link leading out.
func TestBufferPath(t *testing.T) {
	f := newConfinementFixture(t)
	for _, tt := range []struct{ file, want string }{
		{"a.go", "a.go"},
		{"sub/alias.go", "a.go"},
		{"new.go", "new.go"},
		{"subalias/new.go", "sub/new.go"},
		{"a.go/x.go", "a.go/x.go"}, // nothing can be open there
		{"out.go", "error: leads outside the workspace root through a symbolic link"},
		{"outdir/new.go", "error: leads outside the workspace root through a symbolic link"},
		{"dangling/new.go", "error: lies under a symbolic link that leads nowhere"},
		{"dangling", "error: is a symbolic link that leads nowhere"},
		{"../outside/secret.go", "error: is outside the workspace root"},
		{"%2e%2e/x.go", "error: percent-encoding"},
	} {
		got, err := f.b.bufferPath(tt.file)
		checkResolved(t, "bufferPath", tt.file, f.root, got, err, tt.want)
	}
}

// TestEditsRefusedOutside checks the one place every edit tool's edits
// pass (rename, format, organize imports, code actions, quick fixes):
// an edit to a file outside the root, or reached through a link leading
// out, or a file operation other than creation, is refused before any
// file is read.
func TestEditsRefusedOutside(t *testing.T) {
	f := newConfinementFixture(t)
	goroot := goEnvDir(t, f.b, "goroot")
	uri := func(p string) string { return "file://" + p }
	edit := []byte(`[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"// x\n"}]`)
	for _, tt := range []struct {
		name string
		we   string
		want string
	}{
		{"outside", `{"changes":{"` + uri(f.outside+"/secret.go") + `":` + string(edit) + `}}`, "outside the workspace root; goplsmcp only proposes edits inside it"},
		{"standard library", `{"changes":{"` + uri(goroot+"/src/fmt/print.go") + `":` + string(edit) + `}}`, "the change would edit $GOROOT/src/fmt/print.go, outside the workspace root"},
		{"file link out", `{"changes":{"` + uri(f.root+"/out.go") + `":` + string(edit) + `}}`, "leads outside the workspace root through a symbolic link"},
		{"directory link out", `{"documentChanges":[{"textDocument":{"uri":"` + uri(f.root+"/outdir/secret.go") + `","version":null},"edits":` + string(edit) + `}]}`, "leads outside the workspace root through a symbolic link"},
		{"creation through a link out", `{"documentChanges":[{"kind":"create","uri":"` + uri(f.root+"/outdir/new.go") + `"}]}`, "leads outside the workspace root through a symbolic link"},
		{"creation under a dangling link", `{"documentChanges":[{"kind":"create","uri":"` + uri(f.root+"/dangling/new.go") + `"}]}`, "leads outside the workspace root through a symbolic link"},
		{"dotdot", `{"changes":{"` + uri(f.root+"/../outside/secret.go") + `":` + string(edit) + `}}`, "outside the workspace root"},
		{"not a file", `{"changes":{"untitled:x":` + string(edit) + `}}`, "which is not a file"},
		{"deletion", `{"documentChanges":[{"kind":"delete","uri":"` + uri(f.root+"/a.go") + `"}]}`, "the change would delete a file, which goplsmcp does not propose"},
		{"renaming", `{"documentChanges":[{"kind":"rename","oldUri":"` + uri(f.root+"/a.go") + `","newUri":"` + uri(f.outside+"/a.go") + `"}]}`, "the change would rename a file"},
	} {
		var we workspaceEdit
		if err := json.Unmarshal([]byte(tt.we), &we); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		_, err := f.b.editsFrom(t.Context(), &we)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestResolveFileSeesChanges checks that a file resolved once is resolved
// afresh after a change on the way to it: the file replaced by a pipe, a
// directory on the way replaced by a symbolic link leading out.
func TestResolveFileSeesChanges(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("resolutions are kept only where directories are watched (Linux)")
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(tmp, "root"), filepath.Join(tmp, "outside")
	for name, data := range map[string]string{
		"root/go.mod":            "module example.com/r\n\ngo 1.26\n",
		"root/deep/er/still.go":  "package er\n",
		"outside/er/still.go":    "package er\n",
		"root/deep/er/other.go":  "package er\n",
		"root/deep/d.go":         "package deep\n",
		"outside/er/go.mod.none": "",
	} {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gopls, err := filepath.Abs("../bin/gopls")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := lspclient.Start(ctx, lspclient.Options{Gopls: gopls, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := New(Config{Root: root, Client: c})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "deep", "er")
	// Opening a document watches its directory.
	for _, p := range []string{"deep/d.go", "deep/er/other.go"} {
		if _, err := c.Sync(ctx, lspclient.FileURI(filepath.Join(root, p)), "package x\n"); err != nil {
			t.Fatal(err)
		}
	}
	if !c.Watched(dir) {
		t.Fatal("deep/er is not watched")
	}
	resolve := func(file string) error {
		t.Helper()
		_, err := b.resolveFile(file)
		return err
	}
	for range 2 {
		if err := resolve("deep/er/still.go"); err != nil {
			t.Fatal(err)
		}
	}
	// The file becomes a pipe.
	still := filepath.Join(dir, "still.go")
	if err := os.Remove(still); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(still, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := resolve("deep/er/still.go"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("after the file became a pipe: %v", err)
	}
	os.Remove(still)
	if err := os.WriteFile(still, []byte("package er\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := resolve("deep/er/still.go"); err != nil {
		t.Fatal(err)
	}
	// A directory on the way becomes a link leading out.
	if err := os.Rename(filepath.Join(root, "deep"), filepath.Join(tmp, "deep.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "deep")); err != nil {
		t.Fatal(err)
	}
	if err := resolve("deep/er/still.go"); err == nil || !strings.Contains(err.Error(), "leads outside the workspace root") {
		t.Errorf("after a directory on the way became a link leading out: %v", err)
	}
}
