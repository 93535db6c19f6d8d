package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

const defaultDiagnosticLimit = 100

// DiagnosticsInput is the input of go_diagnostics.
type DiagnosticsInput struct {
	Files []string `json:"files,omitempty" jsonschema:"files as on disk; none: the whole workspace"`
	Doc
	Changes  []Change `json:"changes,omitempty" jsonschema:"unsaved text of several files, for one edit"`
	Limit    int      `json:"limit,omitempty" jsonschema:"default 100"`
	Detailed bool     `json:"detailed,omitempty" jsonschema:"add end positions, source lines and fix edits"`
}

// DiagnosticsOutput is the result of go_diagnostics.
type DiagnosticsOutput struct {
	URI    string                          `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer checked, for later calls"`
	Impact *DiagnosticsImpact              `json:"impact,omitempty" jsonschema:"with unsaved text for files: what it changes against the files on disk, by count; the diagnostics it introduces are marked + in files"`
	Total  int                             `json:"total,omitempty" jsonschema:"number of diagnostics found, when fewer are listed"`
	Notes  Notes                           `json:"notes,omitempty" jsonschema:"how to read the marks of an edit's diagnostics, how many are listed of total and how to see more, as the text says it"`
	Files  mcp.OrderedMap[FileDiagnostics] `json:"files" jsonschema:"the diagnostics by file"`

	// items are the diagnostics listed, by file and position; Files is
	// made of them by finish.
	items    []diagnostic
	detailed bool
	// listed is the note of a list cut at the limit, among Notes.
	listed Notes
}

// FileDiagnostics are the diagnostics of one file.
type FileDiagnostics struct {
	At    []string `json:"at,omitempty" jsonschema:"line:col: message, with the severity when it is not error, and the analyzer when it is not the compiler; + first: an unsaved edit introduces it; 1-based, byte columns, as go vet prints them"`
	Fixes []string `json:"fixes,omitempty" jsonschema:"line:col: title of a quick fix for the diagnostic there; 1-based, byte columns, as go vet prints them"`
	More  int      `json:"more,omitempty" jsonschema:"diagnostics of the file beyond the limit, not listed"`

	// bySeverity counts the file's diagnostics, listed or not, in the
	// order of severities.
	bySeverity [len(severities)]int
}

// diagnostic is one problem gopls reports, as the answer shows it.
type diagnostic struct {
	file       string
	line, char int // as gopls counts them, to match and order
	// at is the place as answers show it (see place.Pos); its end is set
	// only when detailed.
	at              iplace.Span
	severity        string
	source, message string
	text            string // the source line, detailed only
	hint            string // how to get a missing module the message names
	fixes           []Fix
	introduced      bool // by the unsaved edit the call gives
}

// severities are the severities in the order answers count them.
var severities = [...]string{"error", "warning", "info", "hint"}

// count adds a diagnostic of severity sev to the file's counts.
func (f *FileDiagnostics) count(sev string) {
	i := slices.Index(severities[:], sev)
	if i < 0 {
		i = len(severities) - 1
	}
	f.bySeverity[i]++
}

// counts says the file's counts by severity, most severe first.
func (f *FileDiagnostics) counts() string {
	var parts []string
	for i, n := range f.bySeverity {
		switch {
		case n == 0:
		case severities[i] == "info":
			parts = append(parts, fmt.Sprintf("%d info", n))
		default:
			parts = append(parts, render.Plural(n, severities[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// entry renders d as its file's list shows it: marked + when an unsaved
// edit introduces it, the severity only when it is not error, and the
// source only when it is not the compiler.
func (d *diagnostic) entry(detailed bool) string {
	var b strings.Builder
	if d.introduced {
		b.WriteString("+ ")
	}
	if detailed {
		b.WriteString(d.at.String())
	} else {
		b.WriteString(d.at.Start.String())
	}
	b.WriteString(": ")
	if d.severity != "error" {
		b.WriteString(d.severity + ": ")
	}
	b.WriteString(d.message)
	if d.source != "" && d.source != "compiler" {
		fmt.Fprintf(&b, " (%s)", d.source)
	}
	if d.hint != "" {
		b.WriteString("; " + d.hint)
	}
	if detailed && d.text != "" {
		b.WriteString("\n\t" + d.text)
	}
	return b.String()
}

// fixEntry renders the fix f of d: line:col: title, and, when
// detailed, its edits, one a line.
func (d *diagnostic) fixEntry(f Fix, detailed bool) string {
	var b strings.Builder
	b.WriteString(d.at.Start.Text(f.Title))
	if detailed {
		for _, e := range f.Edits {
			b.WriteString("\n\t" + e.String())
		}
	}
	return b.String()
}

// finish lists each listed diagnostic, and its fixes, under its file.
func (o *DiagnosticsOutput) finish() {
	for _, d := range o.items {
		f := o.Files.Ref(d.file)
		f.At = append(f.At, d.entry(o.detailed))
		for _, fix := range d.fixes {
			f.Fixes = append(f.Fixes, d.fixEntry(fix, o.detailed))
		}
	}
	for _, file := range o.Files.Keys() {
		f := o.Files.Ref(file)
		f.More = -len(f.At)
		for _, n := range f.bySeverity {
			f.More += n
		}
	}
}

// Render implements mcp.Renderer. Diagnostics are grouped by file: a
// line with the file's path and its counts by severity, most severe
// first, then one line per diagnostic as line:col: message (the
// severity is said only when it is not the file's most severe, the
// source only when it is not the compiler), with the titles of its quick
// fixes below it (and their edits, when detailed).
func (o *DiagnosticsOutput) Render() string {
	var b strings.Builder
	if o.URI != "" {
		b.WriteString("buffer " + o.URI + "\n")
	}
	if o.Impact != nil {
		o.Impact.render(&b)
		b.WriteString("all diagnostics with the edit:\n")
	}
	if o.Files.Len() == 0 {
		b.WriteString("no diagnostics")
		return b.String()
	}
	if o.Total > 0 {
		fmt.Fprintf(&b, "%s%s\n", render.Plural(o.Total, "diagnostic"), o.listed.Parens())
	}
	i := 0
	o.Files.All(func(file string, f FileDiagnostics) {
		b.WriteString(file + ": " + f.counts())
		if f.More > 0 {
			fmt.Fprintf(&b, " (%d not listed)", f.More)
		}
		b.WriteString("\n")
		for ; i < len(o.items) && o.items[i].file == file; i++ {
			d := &o.items[i]
			b.WriteString(d.entry(o.detailed) + "\n")
			for _, fix := range d.fixes {
				b.WriteString("\tfix: " + fix.Title + "\n")
				if o.detailed {
					for _, e := range fix.Edits {
						b.WriteString("\t\t" + e.String() + "\n")
					}
				}
			}
		}
	})
	return strings.TrimSuffix(b.String(), "\n")
}

// diagnosticsTool is go_diagnostics's entry in the catalogue (see ToolSpec).
var diagnosticsTool = ToolSpec{
	Name:        "go_diagnostics",
	Title:       "Go diagnostics",
	Description: "Compile errors, type errors and vet warnings (analyzers), with quick fixes. Pass the files you changed: errors an edit causes in other packages too. file + text (changes: several files): an unsaved edit, the errors it introduces marked +, removed ones first. text alone: a snippet.",
	Narrow:      "narrow the call: pass a smaller limit, fewer files, or one file, and leave detailed out",
	Instruction: "compile errors and vet warnings with quick fixes. After an edit, pass the changed files: errors in other packages too. file + text (or changes): an unsaved edit's new and fixed errors first.",
	Skill:       "Does it compile? Errors and vet warnings, with quick fixes",
	Doc:         "as `gopls mcp`'s: the parse and type errors of every package of the whole workspace, always, plus full analyzer diagnostics for the `files` named (or one `file` with unsaved `text`), which come first, grouped by file; the named files' diagnostics with their quick fixes (`detailed`: their edits), every file's when none is named. An edit that breaks importers, unsaved or saved, shows in the answer about the file edited. `text` alone checks a snippet, alone",
	Summary:     "parse and type errors of the whole workspace, analyzer findings for the files named, quick fixes; with unsaved `text`, what an edit would break before it is saved",
	Framing:     []string{`^no diagnostics$`, `(?:: |, )\d+ (errors?|warnings?|infos?|hints?)`, `^\tfix: `, `\(\d+ not listed\)`, `^\d+ diagnostics`, `^edit against disk: \d+ introduced, \d+ removed, \d+ unchanged`, `^package \S+: \d+ (introduced|removed)(, \d+ (introduced|removed))*`, `\(\d+ past the limit, named here\)`, `^all diagnostics with the edit:$`},
	Good:        Sample{Args: `{"detailed": true}`, Want: "broken/broken.go: 1 error"},
	Bad:         Sample{Args: `{"files": ["../outside.go"]}`, Want: `^file "\.\./outside\.go" is outside the workspace root`},
	Questions: []string{
		"check my code compiles",
		"show compile errors",
		"type errors after my edit",
		"did my change break other packages",
		"vet warnings in this file",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.diagnostics) },
}

func (b *Bridge) diagnostics(ctx context.Context, in *DiagnosticsInput) (*DiagnosticsOutput, error) {
	limit, err := limitOr(in.Limit, defaultDiagnosticLimit)
	if err != nil {
		return nil, err
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	edits := in.edits()
	// The edit is measured against the files on disk, diagnosed before
	// its text is held.
	var before map[string][]protocol.Diagnostic
	if len(edits) > 0 {
		if before, err = b.baseline(ctx, edits); err != nil {
			return nil, err
		}
	}
	d := &diagnosed{workspace: true}
	defer d.release()
	if err := b.openDiagnosed(ctx, in, edits, d); err != nil {
		return nil, err
	}
	byURI, err := b.diagnoseWith(ctx, d)
	if err != nil {
		return nil, err
	}
	gen := b.client.Generation()
	out := b.shapeDiagnostics(byURI, limit, in.Detailed, d.first)
	out.URI = d.bufferURI
	if before != nil {
		b.impact(before, byURI, out)
	}
	if err := b.addFixes(ctx, out, d.fixed(byURI), d.srcs, gen, d.workspace); err != nil {
		return nil, err
	}
	out.finish()
	return out, nil
}

// check refuses arguments that name the code two ways at once.
func (in *DiagnosticsInput) check() error {
	if len(in.Files) > 0 && (in.Given() || len(in.Changes) > 0) {
		return errors.New("pass files (files as on disk), or unsaved text (file with text, or changes), or uri, or text alone, not two of them")
	}
	if len(in.Changes) > 0 && in.Given() && !in.Doc.Overlay() {
		return errors.New("changes go alone or with file and text, not with uri or a snippet")
	}
	for _, c := range in.Changes {
		if c.File == "" || c.Text == "" {
			return errors.New("each of changes needs file and text; to check a file as on disk, pass it in files")
		}
	}
	return nil
}

// diagnosed is what a go_diagnostics call holds while gopls diagnoses it.
type diagnosed struct {
	// srcs are the sources held, released at the end of the call.
	srcs []*buffer.Source
	// first are the files the call names, which the answer lists first,
	// in the order named.
	first []string
	// bufferURI is the buffer of the one text given, if one was.
	bufferURI string
	// workspace is false for a snippet, which is checked alone: it is no
	// part of the workspace.
	workspace bool
}

func (d *diagnosed) release() {
	for _, s := range d.srcs {
		s.Release()
	}
}

// fixed are the diagnostics whose quick fixes the answer gets: of the
// files named, where the call's attention is (the errors an edit causes
// elsewhere are mended in the edit); of every file listed when none is
// named. Each file's fixes cost gopls its package's analysis.
func (d *diagnosed) fixed(byURI map[string][]protocol.Diagnostic) map[string][]protocol.Diagnostic {
	if len(d.first) == 0 {
		return byURI
	}
	fixed := map[string][]protocol.Diagnostic{}
	for _, uri := range d.first {
		if diags, ok := byURI[uri]; ok {
			fixed[uri] = diags
		}
	}
	return fixed
}

// openDiagnosed holds in d the sources the call names: the edits' texts,
// one text given (a file's unsaved text, a buffer or a snippet), or files
// as on disk; none for the workspace's diagnostics alone.
func (b *Bridge) openDiagnosed(ctx context.Context, in *DiagnosticsInput, edits []Doc, d *diagnosed) error {
	switch {
	case len(edits) > 0:
		return b.openEdits(ctx, edits, d)
	case in.Given():
		src, err := b.buffers.OpenDoc(ctx, b.caller(ctx), in.Doc)
		if err != nil {
			return err
		}
		d.srcs = append(d.srcs, src)
		d.bufferURI = src.BufferURI()
		d.first = append(d.first, src.URI)
		d.workspace = src.Kind != buffer.FromSnippet
	case len(in.Files) > 0:
		return b.openFiles(ctx, in.Files, d)
	}
	return nil
}

// openEdits holds each edited file's unsaved text.
func (b *Bridge) openEdits(ctx context.Context, edits []Doc, d *diagnosed) error {
	for _, e := range edits {
		src, err := b.buffers.OpenDoc(ctx, b.caller(ctx), e)
		if err != nil {
			return err
		}
		if findSource(d.srcs, src.URI) != nil {
			src.Release()
			return fmt.Errorf("%s is given twice; give each file's text once", render.Quote(e.File))
		}
		d.srcs = append(d.srcs, src)
		d.first = append(d.first, src.URI)
	}
	if len(edits) == 1 {
		d.bufferURI = d.srcs[0].BufferURI()
	}
	return nil
}

// openFiles holds the files named, as on disk.
func (b *Bridge) openFiles(ctx context.Context, files []string, d *diagnosed) error {
	paths := make([]string, 0, len(files))
	for _, f := range files {
		p, err := b.addr.File(f)
		if err != nil {
			return err
		}
		if uri := lspclient.FileURI(p); !slices.Contains(d.first, uri) {
			d.first = append(d.first, uri)
			paths = append(paths, p)
		}
	}
	// Held in a fixed order, so that calls holding several files never
	// wait on each other in a cycle.
	slices.Sort(paths)
	for _, p := range paths {
		src, err := b.buffers.Open(ctx, b.caller(ctx), p)
		if err != nil {
			return err
		}
		d.srcs = append(d.srcs, src)
	}
	return nil
}

// diagnoseWith asks gopls for the diagnostics of d's sources and, unless
// d is a snippet, for the whole workspace's parse and type errors: an
// edit breaks other packages, as gopls finds with the text it holds now,
// the named files' unsaved text included. The named files' own
// diagnostics win over the workspace's.
//
// A file named as on disk that gopls holds open, in a build the
// workspace's diagnosis names, is covered by that full diagnosis, which
// the call waits for anyway, analyzers included: its diagnostics are
// taken from what gopls published then. Pulled beside it
// (textDocument/diagnostic), they cost gopls its package's type-checking
// and analysis a second time, at the same moment, on the same cores;
// right after a change on disk that was a third of gopls's CPU for the
// call (BENCHMARKS.md). Other sources (unsaved text, a snippet, a file of
// another system or of a build the diagnosis does not name) are pulled.
func (b *Bridge) diagnoseWith(ctx context.Context, d *diagnosed) (map[string][]protocol.Diagnostic, error) {
	// gopls runs its analyzers, and keeps their fixes, for open files.
	var onDisk, covered []string
	for _, s := range d.srcs {
		if s.OpenInGopls() && d.workspace && s.Kind == buffer.FromDisk {
			onDisk = append(onDisk, s.URI)
		}
	}
	if len(onDisk) > 0 {
		var err error
		if covered, err = b.coveredByWorkspace(ctx, onDisk); err != nil {
			return nil, err
		}
	}
	var pull []*buffer.Source
	for _, s := range d.srcs {
		if !slices.Contains(covered, s.URI) {
			pull = append(pull, s)
		}
	}
	var others, named map[string][]protocol.Diagnostic
	var othersErr error
	var wg sync.WaitGroup
	if d.workspace {
		otherBuild := b.namesOtherBuild(d.srcs)
		wg.Go(func() { others, named, othersErr = b.workspaceErrors(ctx, otherBuild, covered) })
	}
	byURI := map[string][]protocol.Diagnostic{}
	err := b.diagnoseSources(ctx, pull, byURI)
	wg.Wait()
	if err == nil {
		err = othersErr
	}
	if err != nil {
		return nil, err
	}
	for _, uri := range covered {
		byURI[uri] = named[uri]
	}
	for uri, diags := range others {
		if _, named := byURI[uri]; !named {
			byURI[uri] = diags
		}
	}
	return byURI, nil
}

// workspaceErrors returns the parse and type errors gopls finds in every
// build of the workspace (see modules.Modules.WorkspaceFiles), by URI: analyzers' findings
// are for the files a call names. It returns when gopls has published
// them. The builds of the files covered (URIs, open in gopls) are
// diagnosed too, and named holds every diagnostic gopls published for
// them in their own build, analyzers' included: each is in a build that
// the diagnosis names (see coveredByWorkspace).
//
// Unless otherBuild is set, the errors gopls publishes from a build it
// makes for a file of another system, while a call holds one or a session
// has unsaved text for one, are left out: they are not errors of the
// build the user builds (see gocmd.Build.OtherBuildOf).
func (b *Bridge) workspaceErrors(ctx context.Context, otherBuild bool, covered []string) (map[string][]protocol.Diagnostic, map[string][]protocol.Diagnostic, error) {
	files, err := b.mods.WorkspaceFiles(ctx, b.caller(ctx))
	if err != nil {
		return nil, nil, err
	}
	published, err := b.client.WorkspaceDiagnostics(ctx, files...)
	if err != nil {
		return nil, nil, ask.Error(err)
	}
	// gopls publishes a file's diagnostics from every build that holds
	// it; a pull of them is the file's own build's.
	named := map[string][]protocol.Diagnostic{}
	for _, uri := range covered {
		named[uri] = slices.DeleteFunc(slices.Clone(published[uri]), func(d protocol.Diagnostic) bool { return b.build.OtherBuildOf(d.Message) })
	}
	byURI := map[string][]protocol.Diagnostic{}
	scratch := filepath.Join(b.root, filepath.FromSlash(buffer.ScratchDir))
	for uri, diags := range published {
		p, err := lspclient.URIPath(uri)
		if err != nil || !iplace.Within(b.root, p) || iplace.Within(scratch, p) || b.buffers.Foreign(b.caller(ctx), uri) {
			continue
		}
		var errs []protocol.Diagnostic
		for _, d := range diags {
			if d.Severity == protocol.DiagnosticSeverityError && buildSources[d.Source] && (otherBuild || !b.build.OtherBuildOf(d.Message)) {
				errs = append(errs, d)
			}
		}
		if len(errs) > 0 {
			byURI[uri] = errs
		}
	}
	return byURI, named, nil
}

// namesOtherBuild reports whether a call names a file for another system
// (see gocmd.RootBuild.Excludes): it is answered in that file's build, the
// workspace's errors in that build included.
func (b *Bridge) namesOtherBuild(srcs []*buffer.Source) bool {
	return slices.ContainsFunc(srcs, func(s *buffer.Source) bool { return b.rootBuild.Excludes(s.Path) })
}

// buildSources are the sources of the diagnostics that come from loading,
// parsing and type-checking (gopls's own names), as opposed to analyzers'.
var buildSources = map[string]bool{"go list": true, "syntax": true, "compiler": true, "go mod tidy": true, "go.work file": true, "template": true, "": true}

// diagCache keeps what go_diagnostics asked gopls (see memo.Gen): each
// file's diagnostics and each diagnostic's quick fixes, so that a repeated
// call with nothing changed asks gopls nothing.
type diagCache struct {
	files memo.Gen[string, []protocol.Diagnostic] // pulled, by URI
	fixes memo.Gen[fixKey, []Fix]
}

// fixKey names one diagnostic of one file.
type fixKey struct {
	uri     string
	rng     protocol.Range
	source  string
	message string
}

func keyOf(uri string, d protocol.Diagnostic) fixKey {
	return fixKey{uri: uri, rng: d.Range, source: d.Source, message: d.Message}
}

// Bounds: past them a cache starts afresh.
const (
	maxCachedDiagFiles = 256
	maxCachedFixes     = 4096
)

// diagnoseSources asks gopls for the diagnostics of each source, all at
// once, unless it was asked since the last change (see diagCache).
func (b *Bridge) diagnoseSources(ctx context.Context, srcs []*buffer.Source, into map[string][]protocol.Diagnostic) error {
	// The sources are held, so their buffers are what gopls has.
	gen := b.client.Generation()
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
		pulled   = map[string][]protocol.Diagnostic{}
	)
	for _, src := range srcs {
		if diags, ok := b.diags.files.Get(gen, src.URI); ok {
			mu.Lock() // the calls started before write into too
			into[src.URI] = diags
			mu.Unlock()
			continue
		}
		wg.Go(func() {
			diags, err := b.client.DiagnoseFile(ctx, src.URI)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("%s: %w", b.displayPath(src.Path), ask.Error(err))
				}
				return
			}
			into[src.URI] = diags
			pulled[src.URI] = diags
		})
	}
	wg.Wait()
	if firstErr == nil {
		b.diags.files.Keep(gen, b.client.Changed(gen), pulled)
	}
	return firstErr
}

// addFixes attaches to each listed diagnostic of byURI the quick fixes gopls
// offers for it, found at generation gen (those asked for since the last
// change are kept; see diagCache).
// diagnosed says whether gopls has diagnosed the workspace in full already.
func (b *Bridge) addFixes(ctx context.Context, out *DiagnosticsOutput, byURI map[string][]protocol.Diagnostic, held []*buffer.Source, gen uint64, diagnosed bool) error {
	if len(out.items) == 0 {
		return nil
	}
	computed := map[fixKey][]Fix{}
	// The LSP diagnostics behind each listed one, by file.
	type listed struct {
		index int
		diag  protocol.Diagnostic
	}
	byFile := map[string][]listed{}
	for uri, diags := range byURI {
		file := b.displayURI(uri)
		for _, d := range diags {
			for i := range out.items {
				x := &out.items[i]
				if x.file == file && x.line == int(d.Range.Start.Line) && x.char == int(d.Range.Start.Character) && x.message == render.OneLine(d.Message) {
					byFile[uri] = append(byFile[uri], listed{i, d})
					break
				}
			}
		}
	}
	for uri, all := range byFile {
		var ls []listed
		for _, l := range all {
			if fixes, ok := b.diags.fixes.Get(gen, keyOf(uri, l.diag)); ok {
				out.items[l.index].fixes = fixes
			} else {
				ls = append(ls, l)
			}
		}
		if len(ls) == 0 {
			continue
		}
		if !diagnosed {
			// gopls offers an analyzer's fixes only for the diagnostics
			// it has itself computed and stored for the text it holds
			// now (a full diagnosis, skipped if it made one since the
			// last change).
			uris, err := b.diagnosisFiles(ctx, held)
			if err != nil {
				return err
			}
			if err := b.client.DiagnoseFiles(ctx, uris); err != nil {
				return ask.Error(err)
			}
			diagnosed = true
		}
		src := findSource(held, uri)
		if src == nil {
			p, err := lspclient.URIPath(uri)
			if err != nil {
				continue
			}
			// Another file with errors. gopls computes an unopened
			// file's fixes afresh each time, which costs more than the
			// analysis its package then gets at each diagnosis once open
			// (measured on the bench's fixture: 56 against 35 ms a call).
			s, err := b.buffers.OpenCurrent(ctx, b.caller(ctx), p)
			if err != nil {
				continue
			}
			defer s.Release()
			src = s
		}
		diags := make([]protocol.Diagnostic, len(ls))
		for i, l := range ls {
			diags[i] = l.diag
		}
		fixes, err := b.actions.QuickFixes(ctx, src, diags)
		if err != nil {
			return err
		}
		for i, l := range ls {
			out.items[l.index].fixes = fixes[i]
			computed[keyOf(uri, l.diag)] = fixes[i]
		}
	}
	b.diags.fixes.Keep(gen, b.client.Changed(gen), computed)
	return nil
}

// diagnosisFiles names the builds that hold srcs, for a full diagnosis
// (gopls.diagnose_files). gopls diagnoses a whole build whichever of its
// files is named, but naming a file open in gopls leaves it holding
// memory it never gives back, once for each file so named (BENCHMARKS.md,
// issue 33, "What a full diagnosis keeps": 240 GOROOT files opened in
// turn took gopls's live heap to 162 MB when a file of the same build
// that is not open was named, to 427 MB when each file itself was).
// So each source's build is named by the file [modules.Modules.WorkspaceFiles]
// names it by; a source whose build that list does not name (a file for
// another system, a module gopls was given no build for) names itself.
func (b *Bridge) diagnosisFiles(ctx context.Context, srcs []*buffer.Source) ([]string, error) {
	files, err := b.mods.WorkspaceFiles(ctx, b.caller(ctx))
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, f := range files {
		listed[f] = true
	}
	mods := b.mods.OnDisk()
	for _, s := range srcs {
		if b.buildListed(s.Path, mods, listed) {
			continue
		}
		if !listed[s.URI] {
			listed[s.URI] = true
			files = append(files, s.URI)
		}
	}
	return files, nil
}

// coveredByWorkspace returns those of the files (URIs) whose build the
// workspace's diagnosis names (see diagnosisFiles): gopls's diagnosis of
// the workspace diagnoses them.
func (b *Bridge) coveredByWorkspace(ctx context.Context, uris []string) ([]string, error) {
	files, err := b.mods.WorkspaceFiles(ctx, b.caller(ctx))
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, f := range files {
		listed[f] = true
	}
	mods := b.mods.OnDisk()
	var covered []string
	for _, uri := range uris {
		if p, err := lspclient.URIPath(uri); err == nil && (listed[uri] || b.buildListed(p, mods, listed)) {
			covered = append(covered, uri)
		}
	}
	return covered, nil
}

// buildListed reports whether the build of the file at path, the root's
// build of the innermost module of mods holding it, is named in listed
// (URIs) by that module's Go file.
func (b *Bridge) buildListed(path string, mods []gocmd.Module, listed map[string]bool) bool {
	if b.rootBuild.Excludes(path) {
		return false
	}
	var in *gocmd.Module
	for i := range mods {
		if iplace.Within(mods[i].Dir, path) && (in == nil || len(mods[i].Dir) > len(in.Dir)) {
			in = &mods[i]
		}
	}
	return in != nil && in.GoFile != "" && listed[lspclient.FileURI(in.GoFile)]
}

func findSource(srcs []*buffer.Source, uri string) *buffer.Source {
	for _, s := range srcs {
		if s.URI == uri {
			return s
		}
	}
	return nil
}

// noCompiler matches the go command's words for a missing C compiler.
var noCompiler = regexp.MustCompile(`cgo: C compiler "([^"]+)" not found`)

// shapeDiagnostics sorts the diagnostics by file, the files of first
// (URIs) first in that order, then by path, and by position in each file;
// it lists the first limit, and counts every file.
func (b *Bridge) shapeDiagnostics(byURI map[string][]protocol.Diagnostic, limit int, detailed bool, first []string) *DiagnosticsOutput {
	lines := b.buffers.LineCache()
	rank := map[string]int{}
	var all []diagnostic
	missing := len(b.mods.Missing()) > 0
	noCC := ""
	for _, diags := range byURI {
		for _, d := range diags {
			if m := noCompiler.FindStringSubmatch(d.Message); m != nil {
				noCC = fmt.Sprintf("no C compiler (%s) was found, so the cgo parts (C.…) cannot be checked and their errors are not the code's: install one (e.g. gcc) or set CC; the Go parts are checked", m[1])
			}
		}
	}
	for uri, diags := range byURI {
		file := b.displayURI(uri)
		rank[file] = len(first)
		if i := slices.Index(first, uri); i >= 0 {
			rank[file] = i
		}
		for _, d := range diags {
			x := diagnostic{
				file:     file,
				line:     int(d.Range.Start.Line),
				char:     int(d.Range.Start.Character),
				at:       iplace.Span{Start: lines.Pos(uri, d.Range.Start)},
				severity: render.Severity(d.Severity),
				source:   d.Source,
				// One line: a diagnostic is a line of the answer.
				message: render.OneLine(d.Message),
			}
			if missing {
				// A missing module is not the code's fault: say so, and
				// how to get it.
				x.hint = b.mods.HintFor(d.Message)
			}
			if noCC != "" && (noCompiler.MatchString(d.Message) || strings.HasPrefix(d.Message, "undefined: C.")) {
				x.hint = noCC
			}
			if strings.Contains(d.Message, "Inconsistent vendoring") || strings.Contains(d.Message, "requires go >=") {
				// gopls names `go mod vendor` even in a go.work, and
				// the go command's words do not say what to do.
				x.hint = b.mods.LoadFix()
			}
			if detailed {
				x.at.End = lines.Pos(uri, d.Range.End)
				x.text = lines.Line(uri, x.line)
			}
			all = append(all, x)
		}
	}
	slices.SortFunc(all, func(a, b diagnostic) int {
		return cmp.Or(cmp.Compare(rank[a.file], rank[b.file]), cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line),
			cmp.Compare(a.char, b.char), cmp.Compare(a.message, b.message))
	})
	out := &DiagnosticsOutput{items: all, detailed: detailed}
	for _, d := range all {
		out.Files.Ref(d.file).count(d.severity)
	}
	if len(all) > limit {
		out.Total = len(all)
		out.items = all[:limit]
		out.listed = Notes{render.Listed(limit)}
		out.Notes = append(out.Notes, out.listed...)
	}
	return out
}
