package bridge

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"

	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// Change is unsaved text for one file, one of several given together for
// an edit that spans files.
type Change struct {
	File string `json:"file"`
	Text string `json:"text"`
}

// DiagnosticsImpact is what unsaved text changes against the files on
// disk: the diagnostics it introduces and removes, by package directory.
type DiagnosticsImpact struct {
	Unchanged int                           `json:"unchanged,omitempty" jsonschema:"diagnostics found both with and without the edit"`
	Packages  mcp.OrderedMap[PackageImpact] `json:"packages" jsonschema:"the packages the edit affects, by directory"`

	// marked is the note that says how the list marks what the edit
	// introduces, among the answer's notes, when it introduces any.
	marked Notes
}

// markedNote says how an answer's list marks what an edit introduces.
const markedNote = "introduced ones are marked +"

// PackageImpact is an edit's effect on one package's diagnostics. The
// diagnostics it introduces are in the answer's list, marked there, so
// that each is said once: only those beyond the limit are named here.
type PackageImpact struct {
	Introduced int      `json:"introduced,omitempty" jsonschema:"how many diagnostics the edit causes; those listed are marked + in files"`
	Unlisted   []string `json:"unlisted,omitempty" jsonschema:"file:line:col: message the edit causes, beyond the limit so not in files; 1-based, byte columns, as go vet prints them"`
	Removed    []string `json:"removed,omitempty" jsonschema:"file:line:col: message the edit mends (positions on disk; not in files); 1-based, byte columns, as go vet prints them"`
	Unchanged  int      `json:"unchanged,omitempty" jsonschema:"the package's diagnostics found both with and without the edit"`
}

// Overlay reports whether the call gives unsaved text for a file, which
// the session gate must know before it runs (see makesOverlay).
func (in *DiagnosticsInput) Overlay() bool { return in.Doc.Overlay() || len(in.Changes) > 0 }

// edits returns the unsaved texts the call gives for files, in a fixed
// order (by file), so that calls holding several never wait on each other
// in a cycle.
func (in *DiagnosticsInput) edits() []Doc {
	var docs []Doc
	if in.Doc.Overlay() {
		docs = append(docs, in.Doc)
	}
	for _, c := range in.Changes {
		docs = append(docs, Doc{File: c.File, Text: c.Text})
	}
	slices.SortStableFunc(docs, func(a, b Doc) int { return strings.Compare(a.File, b.File) })
	return docs
}

// baseline returns the diagnostics of the workspace and of the files of
// edits as they are on disk: what the edit is measured against. A file not
// yet on disk has none.
func (b *Bridge) baseline(ctx context.Context, edits []Doc) (map[string][]protocol.Diagnostic, error) {
	// Measuring against the disk means gopls checking the files as on
	// disk again, then the edit: twice the work of an edit loop that sends
	// new text each time while the disk stays as it was. So the baseline
	// is kept while nothing on disk and no other unsaved text changes.
	key, keep := b.baselineKey(edits)
	if keep {
		if diags, ok := b.baselines.get(key); ok {
			return diags, nil
		}
	}
	diags, err := b.diagnoseBaseline(ctx, edits)
	if err == nil && keep {
		b.baselines.set(key, diags)
	}
	return diags, err
}

// baselineCache keeps one baseline, by the key baselineKey gives.
type baselineCache struct {
	mu    sync.Mutex
	key   string
	diags map[string][]protocol.Diagnostic
}

func (c *baselineCache) get(key string) (map[string][]protocol.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.diags, c.diags != nil && c.key == key
}

func (c *baselineCache) set(key string, diags map[string][]protocol.Diagnostic) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.diags = key, diags
}

// baselineKey names what a baseline for edits depends on: the files
// edited, the disk (by the watcher's epoch, which moves at any change
// under the root), and every other buffer gopls holds unsaved text for,
// with its version. keep is false where the watcher cannot vouch for
// the whole root: there the baseline is found again each time.
func (b *Bridge) baselineKey(edits []Doc) (key string, keep bool) {
	epoch, watched := b.client.DiskEpoch(b.root)
	if !watched {
		return "", false
	}
	var k strings.Builder
	fmt.Fprintf(&k, "%d", epoch)
	edited := map[string]bool{}
	for _, d := range edits {
		p := d.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(b.root, p)
		}
		uri := lspclient.FileURI(filepath.Clean(p))
		edited[uri] = true
		k.WriteString("\x00" + uri)
	}
	k.WriteString("\x00\x00")
	for _, uri := range slices.Sorted(slices.Values(b.client.OpenDocuments())) {
		if edited[uri] || !b.client.IsOverlay(uri) {
			continue
		}
		_, version, _ := b.client.Document(uri)
		fmt.Fprintf(&k, "\x00%s@%d", uri, version)
	}
	return k.String(), true
}

// diagnoseBaseline asks gopls for the baseline of edits (see baseline).
func (b *Bridge) diagnoseBaseline(ctx context.Context, edits []Doc) (map[string][]protocol.Diagnostic, error) {
	var srcs []*buffer.Source
	defer func() {
		for _, s := range srcs {
			s.Release()
		}
	}()
	for _, d := range edits {
		// Named without text, a file is the file on disk; a new file, or
		// a path the overlay itself will refuse with its reason, has no
		// baseline.
		// Only Go files have diagnostics of their own to pull; a go.mod or
		// go.work edit is measured by the workspace's errors alone.
		if !strings.HasSuffix(d.File, ".go") {
			continue
		}
		src, err := b.buffers.OpenDoc(ctx, b.caller(ctx), Doc{File: d.File})
		if err != nil {
			continue
		}
		if findSource(srcs, src.URI) != nil {
			src.Release()
			continue
		}
		srcs = append(srcs, src)
	}
	byURI := map[string][]protocol.Diagnostic{}
	if err := b.diagnoseSources(ctx, srcs, byURI); err != nil {
		return nil, err
	}
	others, _, err := b.workspaceErrors(ctx, b.namesOtherBuild(srcs), nil)
	if err != nil {
		return nil, err
	}
	for uri, diags := range others {
		if _, named := byURI[uri]; !named {
			byURI[uri] = diags
		}
	}
	return byURI, nil
}

// impactKey identifies a diagnostic across an edit: its place moves when
// lines are added above it, its file, severity, source and message do not.
type impactKey struct{ file, severity, source, message string }

// impact compares the diagnostics before and after an edit, by URI, into
// out.Impact, and marks the listed diagnostics of out the edit introduces.
func (b *Bridge) impact(before, after map[string][]protocol.Diagnostic, out *DiagnosticsOutput) {
	type entry struct {
		key        impactKey
		line, char int // as gopls counts them
		at         iplace.Pos
	}
	// The lines of the text gopls holds now, with the edit, turn UTF-16
	// characters into byte columns; a removed diagnostic's line is the
	// same text unless the edit changed that very line.
	lines := b.buffers.LineCache()
	collect := func(byURI map[string][]protocol.Diagnostic) map[impactKey][]entry {
		m := map[impactKey][]entry{}
		for uri, diags := range byURI {
			file := b.displayURI(uri)
			for _, d := range diags {
				k := impactKey{file, render.Severity(d.Severity), d.Source, render.OneLine(d.Message)}
				m[k] = append(m[k], entry{k, int(d.Range.Start.Line), int(d.Range.Start.Character), lines.Pos(uri, d.Range.Start)})
			}
		}
		return m
	}
	old, now := collect(before), collect(after)
	var introduced, removed, unchanged []entry
	// A diagnostic found n times before and m times after: min(n, m) are
	// unchanged, the rest introduced or removed.
	for k, es := range now {
		n := min(len(es), len(old[k]))
		unchanged = append(unchanged, es[:n]...)
		introduced = append(introduced, es[n:]...)
	}
	for k, es := range old {
		n := min(len(es), len(now[k]))
		removed = append(removed, es[n:]...)
	}
	order := func(a, b entry) int {
		return strings.Compare(fmt.Sprintf("%s\x00%09d\x00%09d\x00%s", a.key.file, a.line, a.char, a.key.message),
			fmt.Sprintf("%s\x00%09d\x00%09d\x00%s", b.key.file, b.line, b.char, b.key.message))
	}
	slices.SortFunc(introduced, order)
	slices.SortFunc(removed, order)
	im := &DiagnosticsImpact{Unchanged: len(unchanged)}
	render := func(e entry) string {
		d := diagnostic{line: e.line, char: e.char, at: iplace.Span{Start: e.at}, severity: e.key.severity, source: e.key.source, message: e.key.message}
		return path.Base(e.key.file) + ":" + d.entry(false)
	}
	// The introduced diagnostics the answer lists are marked there; those
	// past the limit are named in the impact instead.
	type place struct {
		key        impactKey
		line, char int
	}
	pending := map[place]int{}
	for _, e := range introduced {
		pending[place{e.key, e.line, e.char}]++
	}
	for i := range out.items {
		d := &out.items[i]
		p := place{impactKey{d.file, d.severity, d.source, d.message}, d.line, d.char}
		if pending[p] > 0 {
			pending[p]--
			d.introduced = true
		}
	}
	for _, e := range introduced {
		p := im.Packages.Ref(path.Dir(e.key.file))
		p.Introduced++
		if k := (place{e.key, e.line, e.char}); pending[k] > 0 {
			pending[k]--
			p.Unlisted = append(p.Unlisted, render(e))
		}
	}
	for _, e := range removed {
		p := im.Packages.Ref(path.Dir(e.key.file))
		p.Removed = append(p.Removed, render(e))
	}
	// The unchanged count of each package the edit affects.
	for _, e := range unchanged {
		if _, ok := im.Packages.Get(path.Dir(e.key.file)); ok {
			im.Packages.Ref(path.Dir(e.key.file)).Unchanged++
		}
	}
	if len(introduced) > 0 {
		im.marked = Notes{markedNote}
		out.Notes = append(out.Notes, im.marked...)
	}
	out.Impact = im
}

// render writes the impact: a line of counts, then each affected
// package's counts and its removed (-) diagnostics, which the list with
// the edit lacks, and any introduced (+) beyond the limit. The introduced
// diagnostics listed are marked + there, not repeated here.
func (im *DiagnosticsImpact) render(b *strings.Builder) {
	var in, out int
	im.Packages.All(func(_ string, p PackageImpact) { in, out = in+p.Introduced, out+len(p.Removed) })
	fmt.Fprintf(b, "edit against disk: %d introduced, %d removed, %d unchanged%s\n", in, out, im.Unchanged, im.marked.Parens())
	im.Packages.All(func(dir string, p PackageImpact) {
		var parts []string
		if p.Introduced > 0 {
			s := fmt.Sprintf("%d introduced", p.Introduced)
			if len(p.Unlisted) > 0 {
				s += fmt.Sprintf(" (%d past the limit, named here)", len(p.Unlisted))
			}
			parts = append(parts, s)
		}
		if len(p.Removed) > 0 {
			parts = append(parts, fmt.Sprintf("%d removed", len(p.Removed)))
		}
		if p.Unchanged > 0 {
			parts = append(parts, fmt.Sprintf("%d unchanged", p.Unchanged))
		}
		fmt.Fprintf(b, "package %s: %s\n", dir, strings.Join(parts, ", "))
		for _, s := range p.Unlisted {
			b.WriteString("+ " + s + "\n")
		}
		for _, s := range p.Removed {
			b.WriteString("- " + s + "\n")
		}
	})
}
