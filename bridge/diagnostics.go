package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

const defaultDiagnosticLimit = 100

// DiagnosticsInput is the input of go_diagnostics.
type DiagnosticsInput struct {
	Files []string `json:"files,omitempty" jsonschema:"files as on disk; with no files, file, uri or text: the whole workspace"`
	Doc
	Limit    int  `json:"limit,omitempty" jsonschema:"default 100"`
	Detailed bool `json:"detailed,omitempty" jsonschema:"add end positions, source lines and fix edits"`
}

// DiagnosticsOutput is the result of go_diagnostics.
type DiagnosticsOutput struct {
	URI         string       `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer checked, for later calls"`
	Total       int          `json:"total" jsonschema:"number of diagnostics found"`
	Truncated   bool         `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Files       []FileCount  `json:"files,omitempty" jsonschema:"per-file counts, given when the list is truncated"`
	Diagnostics []Diagnostic `json:"diagnostics" jsonschema:"the diagnostics, by file and position"`

	// detailed puts the fixes' edits in the text too.
	detailed bool
}

// FileCount is the number of items in one file.
type FileCount struct {
	File  string `json:"file"`
	Count int    `json:"count"`
}

// Diagnostic is one problem gopls reports.
type Diagnostic struct {
	File         string `json:"file"`
	Line         int    `json:"line"`
	Character    int    `json:"character"`
	EndLine      int    `json:"endLine,omitempty"`
	EndCharacter int    `json:"endCharacter,omitempty"`
	Severity     string `json:"severity" jsonschema:"error, warning, info or hint"`
	Source       string `json:"source,omitempty" jsonschema:"what found it: compiler, syntax, or an analyzer's name"`
	Code         string `json:"code,omitempty"`
	Message      string `json:"message"`
	Text         string `json:"text,omitempty" jsonschema:"the source line (detailed only)"`
	Fixes        []Fix  `json:"fixes,omitempty" jsonschema:"quick fixes gopls offers, each as edits (not applied)"`
}

// Render implements mcp.Renderer. Diagnostics are grouped by file: a
// line with the file's path and its counts by severity, most severe
// first, then one line per diagnostic as line:character: message (the
// severity is said only when it is not the file's most severe, the
// source only when it is not the compiler), with the titles of its quick
// fixes below it. The fixes' edits are in
// the structured result, and in the text when detailed.
func (o *DiagnosticsOutput) Render() string {
	var b strings.Builder
	if o.URI != "" {
		b.WriteString("buffer " + o.URI + "\n")
	}
	if o.Total == 0 {
		b.WriteString("no diagnostics")
		return b.String()
	}
	if o.Truncated {
		fmt.Fprintf(&b, "%s, %d listed (raise limit to see more)\n", plural(o.Total, "diagnostic"), len(o.Diagnostics))
	}
	listed := map[string]int{}
	var usual string // the severity the file's lines need not say
	for i, d := range o.Diagnostics {
		if i == 0 || o.Diagnostics[i-1].File != d.File {
			var counts string
			counts, usual = severityCounts(o.Diagnostics[i:])
			b.WriteString(d.File + ": " + counts + "\n")
		}
		listed[d.File]++
		fmt.Fprintf(&b, "%d:%d", d.Line, d.Character)
		if d.EndLine != 0 || d.EndCharacter != 0 {
			fmt.Fprintf(&b, "-%d:%d", d.EndLine, d.EndCharacter)
		}
		b.WriteString(": ")
		if d.Severity != usual {
			b.WriteString(d.Severity + ": ")
		}
		b.WriteString(d.Message)
		if d.Source != "" && d.Source != "compiler" {
			fmt.Fprintf(&b, " (%s)", d.Source)
		}
		b.WriteString("\n")
		if d.Text != "" {
			fmt.Fprintf(&b, "\t%s\n", d.Text)
		}
		for _, f := range d.Fixes {
			fmt.Fprintf(&b, "\tfix: %s\n", f.Title)
			if o.detailed {
				for _, e := range f.Edits {
					fmt.Fprintf(&b, "\t\t%s\n", e)
				}
			}
		}
	}
	if o.Truncated {
		renderMore(&b, o.Files, listed, 10)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// severityCounts says how many of the diagnostics at the start of ds, up
// to the first of another file, have each severity, most severe first
// ("2 errors, 1 warning"), and returns the most severe.
func severityCounts(ds []Diagnostic) (counted, first string) {
	var order []string
	counts := map[string]int{}
	for _, d := range ds {
		if d.File != ds[0].File {
			break
		}
		if counts[d.Severity] == 0 {
			order = append(order, d.Severity)
		}
		counts[d.Severity]++
	}
	rank := map[string]int{"error": 0, "warning": 1, "info": 2, "hint": 3}
	slices.SortFunc(order, func(x, y string) int { return cmp.Compare(rank[x], rank[y]) })
	parts := make([]string, len(order))
	for i, sev := range order {
		if sev == "info" {
			parts[i] = fmt.Sprintf("%d info", counts[sev])
		} else {
			parts[i] = plural(counts[sev], sev)
		}
	}
	return strings.Join(parts, ", "), order[0]
}

func (b *Bridge) addDiagnostics(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_diagnostics",
		Title:       "Go diagnostics",
		Description: "Parse, type and analyzer errors and warnings with quick fixes, for files on disk, one file with unsaved text (file + text: check an edit before saving it), a snippet (text alone) or the whole workspace. Waits for gopls to finish.",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass a smaller limit, fewer files, or one file, and leave detailed out",
	}, b.diagnostics)
}

func (b *Bridge) diagnostics(ctx context.Context, in *DiagnosticsInput) (*DiagnosticsOutput, error) {
	limit := in.Limit
	if limit < 0 {
		return nil, errors.New("limit must be positive")
	}
	if limit == 0 {
		limit = defaultDiagnosticLimit
	}
	if len(in.Files) > 0 && in.given() {
		return nil, errors.New("pass files (files as on disk), or one file with text, uri or text alone, not both")
	}
	var srcs []*source
	defer func() {
		for _, s := range srcs {
			s.release()
		}
	}()
	byURI := map[string][]protocol.Diagnostic{}
	var bufferURI string
	// gen is gopls's generation the answer belongs to, for the cache.
	var gen uint64
	switch {
	case in.given():
		src, err := b.openDoc(ctx, in.Doc)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, src)
		bufferURI = src.bufferURI()
		if err := b.diagnoseSources(ctx, srcs, byURI); err != nil {
			return nil, err
		}
		gen = b.client.Generation()
	case len(in.Files) > 0:
		paths := make([]string, 0, len(in.Files))
		for _, f := range in.Files {
			p, err := b.resolveFile(f)
			if err != nil {
				return nil, err
			}
			paths = append(paths, p)
		}
		// Held in a fixed order, so that calls holding several files
		// never wait on each other in a cycle.
		slices.Sort(paths)
		for _, p := range slices.Compact(paths) {
			src, err := b.open(ctx, p)
			if err != nil {
				return nil, err
			}
			srcs = append(srcs, src)
		}
		if err := b.diagnoseSources(ctx, srcs, byURI); err != nil {
			return nil, err
		}
		gen = b.client.Generation()
	default:
		anyGo, err := b.anyGoFile()
		if err != nil {
			return nil, err
		}
		published, err := b.client.WorkspaceDiagnostics(ctx, lspclient.FileURI(anyGo))
		if err != nil {
			return nil, goplsError(err)
		}
		gen = b.client.Generation()
		scratch := filepath.Join(b.root, filepath.FromSlash(scratchDir))
		for uri, diags := range published {
			if p, err := lspclient.URIPath(uri); err == nil && within(b.root, p) && !within(scratch, p) {
				byURI[uri] = diags
			}
		}
	}
	out := b.shapeDiagnostics(byURI, limit, in.Detailed)
	out.URI = bufferURI
	if err := b.addFixes(ctx, out, byURI, srcs, gen); err != nil {
		return nil, err
	}
	return out, nil
}

// diagnoseSources asks gopls for the diagnostics of each source, all at
// once, unless it was asked since the last change (see diagCache).
func (b *Bridge) diagnoseSources(ctx context.Context, srcs []*source, into map[string][]protocol.Diagnostic) error {
	// The sources are held, so their buffers are what gopls has.
	gen := b.client.Generation()
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
		pulled   = map[string][]protocol.Diagnostic{}
	)
	for _, src := range srcs {
		if diags, ok := b.diags.files.get(gen, src.uri); ok {
			into[src.uri] = diags
			continue
		}
		wg.Go(func() {
			diags, err := b.client.DiagnoseFile(ctx, src.uri)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("%s: %w", b.displayPath(src.path), goplsError(err))
				}
				return
			}
			into[src.uri] = diags
			pulled[src.uri] = diags
		})
	}
	wg.Wait()
	if firstErr == nil {
		b.diags.files.keep(gen, b.client.Changed(gen), pulled)
	}
	return firstErr
}

// addFixes attaches to each listed diagnostic the quick fixes gopls
// offers for it, found at generation gen (those asked for since the last
// change are kept; see diagCache).
func (b *Bridge) addFixes(ctx context.Context, out *DiagnosticsOutput, byURI map[string][]protocol.Diagnostic, held []*source, gen uint64) error {
	if len(out.Diagnostics) == 0 {
		return nil
	}
	diagnosed := len(held) == 0
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
			for i := range out.Diagnostics {
				x := &out.Diagnostics[i]
				if x.File == file && x.Line == int(d.Range.Start.Line) && x.Character == int(d.Range.Start.Character) && x.Message == d.Message {
					byFile[uri] = append(byFile[uri], listed{i, d})
					break
				}
			}
		}
	}
	for uri, all := range byFile {
		var ls []listed
		for _, l := range all {
			if fixes, ok := b.diags.fixes.get(gen, keyOf(uri, l.diag)); ok {
				out.Diagnostics[l.index].Fixes = fixes
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
			uris := make([]string, len(held))
			for i, s := range held {
				uris[i] = s.uri
			}
			if err := b.client.DiagnoseFiles(ctx, uris); err != nil {
				return goplsError(err)
			}
			diagnosed = true
		}
		src := findSource(held, uri)
		if src == nil {
			p, err := lspclient.URIPath(uri)
			if err != nil {
				continue
			}
			s, err := b.openCurrent(ctx, p)
			if err != nil {
				continue
			}
			defer s.release()
			src = s
		}
		diags := make([]protocol.Diagnostic, len(ls))
		for i, l := range ls {
			diags[i] = l.diag
		}
		fixes, err := b.quickFixes(ctx, src, diags)
		if err != nil {
			return err
		}
		for i, l := range ls {
			out.Diagnostics[l.index].Fixes = fixes[i]
			computed[keyOf(uri, l.diag)] = fixes[i]
		}
	}
	b.diags.fixes.keep(gen, b.client.Changed(gen), computed)
	return nil
}

func findSource(srcs []*source, uri string) *source {
	for _, s := range srcs {
		if s.uri == uri {
			return s
		}
	}
	return nil
}

func (b *Bridge) shapeDiagnostics(byURI map[string][]protocol.Diagnostic, limit int, detailed bool) *DiagnosticsOutput {
	lines := b.newLineCache()
	var all []Diagnostic
	for uri, diags := range byURI {
		file := b.displayURI(uri)
		for _, d := range diags {
			x := Diagnostic{
				File:      file,
				Line:      int(d.Range.Start.Line),
				Character: int(d.Range.Start.Character),
				Severity:  severityName(d.Severity),
				Source:    d.Source,
				Code:      codeString(d.Code),
				Message:   d.Message,
			}
			if detailed {
				x.EndLine, x.EndCharacter = int(d.Range.End.Line), int(d.Range.End.Character)
				x.Text = lines.line(uri, x.Line)
			}
			all = append(all, x)
		}
	}
	slices.SortFunc(all, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Character, b.Character), cmp.Compare(a.Message, b.Message))
	})
	out := &DiagnosticsOutput{Total: len(all), Diagnostics: all, detailed: detailed}
	if out.Diagnostics == nil {
		out.Diagnostics = []Diagnostic{}
	}
	if len(all) > limit {
		out.Truncated = true
		out.Diagnostics = all[:limit]
		for _, d := range all {
			if n := len(out.Files); n == 0 || out.Files[n-1].File != d.File {
				out.Files = append(out.Files, FileCount{File: d.File})
			}
			out.Files[len(out.Files)-1].Count++
		}
	}
	return out
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

func codeString(c any) string {
	switch c := c.(type) {
	case nil:
		return ""
	case string:
		return c
	case float64:
		return fmt.Sprint(int64(c))
	}
	return fmt.Sprint(c)
}

// anyGoFile returns a Go file inside the root, which names the workspace
// to gopls's diagnose command. It searches the tree breadth first and
// stops at the first one.
func (b *Bridge) anyGoFile() (string, error) {
	b.goFileMu.Lock()
	defer b.goFileMu.Unlock()
	if b.goFile != "" {
		if _, err := os.Stat(b.goFile); err == nil {
			return b.goFile, nil
		}
	}
	queue := []string{b.root}
	for visited := 0; len(queue) > 0 && visited < 10000; visited++ {
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if e.Type().IsRegular() && strings.HasSuffix(name, ".go") {
				b.goFile = filepath.Join(dir, name)
				return b.goFile, nil
			}
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() && !skipDir(name) {
				queue = append(queue, filepath.Join(dir, name))
			}
		}
	}
	return "", fmt.Errorf("no Go file under the workspace root %s: %w", b.root, fs.ErrNotExist)
}

// skipDir reports directories the go command ignores.
func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}
