package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// A crossEdit is an edit to one package that breaks packages importing
// it: what the cross-package edit loop makes, undoes and makes again.
type crossEdit struct {
	// file is the file edited, relative to the root; orig its text and
	// broken the edit's.
	file, orig, broken string
	// what names the edit, and detail says what it breaks, for the
	// report.
	what, detail string
	// importers are the files, relative to the root, in which the edit
	// causes an error containing errText. Other files may break too
	// (tests, say); these are the ones every answer must name.
	importers []string
	errText   string
	// noSaved, if set, says why the edit is not also made on disk.
	noSaved string
}

// text is the edit's i-th sample: the edit when broken, the original
// otherwise, each marked with i so that every sample is new text to
// gopls.
func (e *crossEdit) text(i int, broken bool) string {
	base := e.orig
	if broken {
		base = e.broken
	}
	return base + fmt.Sprintf("\n// edit %d\n", i)
}

// replaceAll applies each old → new replacement of pairs to s, and fails
// if one finds nothing to replace: the edit must be the one described.
func replaceAll(s, file string, pairs ...string) (string, error) {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			return "", fmt.Errorf("%s: %q not found; the cross-package edit needs updating", file, pairs[i])
		}
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s, nil
}

// fixtureCrossEdit changes core.ParseSKU's signature (a parameter more),
// updating the one call in its own file, so that core still compiles
// and its importers break at two depths: inventory and catalog call
// ParseSKU, and cmd/benchapp calls inventory.ParseItemSKU, whose type is
// ParseSKU's.
func fixtureCrossEdit(ws *workspace) (*crossEdit, error) {
	const file = "core/sku.go"
	orig, err := os.ReadFile(absPath(ws, file))
	if err != nil {
		return nil, err
	}
	broken, err := replaceAll(string(orig), file,
		"func ParseSKU(s string) (SKU, error) {", "func ParseSKU(s string, minDigits int) (SKU, error) {",
		`digits == ""`, "len(digits) < max(minDigits, 1)",
		"sku, err := ParseSKU(s)", "sku, err := ParseSKU(s, 1)")
	if err != nil {
		return nil, err
	}
	importers := slices.Sorted(func(yield func(string) bool) {
		for f := range skuUsers {
			if !yield(f) {
				return
			}
		}
	})
	importers = append(importers, skuUsersAtDepth2...)
	return &crossEdit{
		file: file, orig: string(orig), broken: broken,
		what:      "core.ParseSKU gains a parameter",
		detail:    "inventory and catalog call core.ParseSKU (depth 1); cmd/benchapp calls inventory.ParseItemSKU, a variable whose type is ParseSKU's (depth 2)",
		importers: importers, errText: "not enough arguments in call to",
	}, nil
}

// gorootCrossImporters are the files of GOROOT/src outside net/textproto
// that call (*textproto.Reader).ReadLine, each with the call gorootCrossEdit
// breaks.
var gorootCrossImporters = []struct{ file, call string }{
	{"net/http/request.go", "tp.ReadLine()"},
	{"net/http/response.go", "tp.ReadLine()"},
	{"net/mail/message.go", "r.ReadLine()"},
}

// gorootCrossEdit gives (*textproto.Reader).ReadLine a parameter,
// updating the calls in its own file, so that net/textproto still
// compiles and net/http and net/mail break. Nothing is written: GOROOT/src
// is only ever given the edit as an overlay.
func gorootCrossEdit(ws *workspace) (*crossEdit, error) {
	const file = "net/textproto/reader.go"
	orig, err := os.ReadFile(absPath(ws, file))
	if err != nil {
		return nil, err
	}
	broken, err := replaceAll(string(orig), file,
		"func (r *Reader) ReadLine() (string, error) {\n\tline, err := r.readLineSlice(-1)",
		"func (r *Reader) ReadLine(limit int) (string, error) {\n\tline, err := r.readLineSlice(limit)",
		"r.ReadLine()", "r.ReadLine(-1)")
	if err != nil {
		return nil, err
	}
	e := &crossEdit{
		file: file, orig: string(orig), broken: broken,
		what:    "(*textproto.Reader).ReadLine gains a parameter",
		detail:  "net/http (request.go, response.go) and net/mail (message.go) call it; net/textproto's own tests break too",
		errText: "not enough arguments in call to",
		noSaved: "GOROOT/src is read only, and a writable stand-in would be a copy of the whole Go installation (so that the go command takes it for the standard library) loaded by two more gopls",
	}
	for _, imp := range gorootCrossImporters {
		data, err := os.ReadFile(absPath(ws, imp.file))
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(data), imp.call) {
			return nil, fmt.Errorf("%s no longer calls %s; the cross-package edit needs updating", imp.file, imp.call)
		}
		e.importers = append(e.importers, imp.file)
	}
	return e, nil
}

// brokenIn reports, of a go_diagnostics answer's structured content,
// whether each of files has a diagnostic containing errText, and whether
// the content could be read.
func brokenIn(structured []byte, files []string, errText string) (map[string]bool, bool) {
	var out bridge.DiagnosticsOutput
	if err := json.Unmarshal(structured, &out); err != nil {
		return nil, false
	}
	got := make(map[string]bool, len(files))
	out.Files.All(func(f string, d bridge.FileDiagnostics) {
		if !slices.Contains(files, f) {
			return
		}
		for _, at := range d.At {
			if strings.Contains(at, errText) {
				got[f] = true
			}
		}
	})
	return got, true
}

// crossRight reports whether an answer names, with the error, every
// importer when broken, and none when not.
func (e *crossEdit) crossRight(structured []byte, broken bool) bool {
	got, ok := brokenIn(structured, e.importers, e.errText)
	if !ok {
		return false
	}
	for _, f := range e.importers {
		if got[f] != broken {
			return false
		}
	}
	return true
}

// publishedAll is the direct client's condition: gopls has published,
// for every importer, diagnostics with the error when broken, and
// without it when not.
func (e *crossEdit) publishedAll(root string, broken bool) func(map[string][]string) bool {
	uris := make([]string, len(e.importers))
	for i, f := range e.importers {
		uris[i] = lspclient.FileURI(filepath.Join(root, filepath.FromSlash(f)))
	}
	return func(byURI map[string][]string) bool {
		for _, uri := range uris {
			has := slices.ContainsFunc(byURI[uri], func(m string) bool { return strings.Contains(m, e.errText) })
			if has != broken {
				return false
			}
		}
		return true
	}
}

// crossVariant is one way of making the edit and learning what it broke.
type crossVariant struct {
	name string
	// direct names the variant whose p50 this one's is compared with;
	// "" for a direct variant.
	direct string
	// run makes sample i and returns how long it took until the answer
	// (or gopls's publication) and whether the answer was right.
	run func(i int, broken bool) (time.Duration, bool, error)
	// n is how many samples it takes, the first n of the loop.
	n     int
	d     samples
	ok    int
	close func() error
	// informational rows are not judged.
	informational bool
}

// crossEditLoop times an edit to one package that breaks its importers,
// from making it to the answer naming them: goplsmcp given the edit as an
// overlay (go_diagnostics file + text), or finding it on disk (written,
// then go_diagnostics files), against gopls publishing the importers'
// errors to a direct client after its didChange, or after the file is
// written and it is told so (didChangeWatchedFiles). Breaking and
// restoring edits alternate; the variants take turns on each.
func (b *bench) crossEditLoop(ctx context.Context, ws *workspace, s *servers) error {
	t := b.table(4, "Edit loop: an edit that breaks other packages",
		"An edit to one package that breaks packages importing it, made and undone in turns (every sample is new text), timed from making it to the answer naming every broken importer with its error (goplsmcp), or to gopls having published those errors to a direct LSP client (the direct rows, which wait for the publications, with a deadline). The direct client's gopls runs with diagnosticsDelay 0, so that it diagnoses the workspace as soon as it learns of the change; with its default delay it waits a second first (shown for context). Overlay: the edited text as an unsaved buffer (goplsmcp: go_diagnostics file + text; direct: didChange). Saved: the file written on a copy of the workspace of each side's own (goplsmcp: then go_diagnostics files; direct: then didChangeWatchedFiles). An undoing edit is right when it names none of those importers. Target: goplsmcp ≤ 1.5× the direct client's time, every answer right.",
		"workspace", "edit", "variant", "n", "p50", "p95", "ratio to direct p50", "right answers", "met")
	var (
		e   *crossEdit
		err error
	)
	if ws.fixture {
		e, err = fixtureCrossEdit(ws)
	} else {
		e, err = gorootCrossEdit(ws)
	}
	if err != nil {
		return err
	}
	n, contextN := b.plan.crossN, b.plan.crossContextN
	timeout := b.plan.callTimeout
	if !ws.fixture {
		n, contextN, timeout = b.plan.crossGorootN, 0, b.plan.gorootCallTimeout
	}
	// A direct variant: apply makes gopls see text; the answer is gopls
	// publishing the condition.
	directVariant := func(name string, d *directClient, root string, apply func(text string) error) *crossVariant {
		return &crossVariant{name: name, n: n, run: func(i int, broken bool) (time.Duration, bool, error) {
			wctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			start := time.Now()
			if err := apply(e.text(i, broken)); err != nil {
				return 0, false, err
			}
			at, err := d.pub.await(wctx, e.publishedAll(root, broken))
			if errors.Is(err, context.DeadlineExceeded) {
				return 0, false, fmt.Errorf("gopls did not publish the importers' diagnostics within %s (edit %d, broken %v)", timeout, i, broken)
			}
			return at.Sub(start), true, err
		}}
	}
	oursOverlay := func(srv *mcpServer) func(i int, broken bool) (time.Duration, bool, error) {
		return func(i int, broken bool) (time.Duration, bool, error) {
			a, err := callWithin(ctx, timeout, srv, "go_diagnostics", map[string]any{"file": e.file, "text": e.text(i, broken)})
			if err != nil || a.isError {
				return 0, false, errors.Join(err, errAnswer(a))
			}
			return a.dur, e.crossRight(a.structured, broken), nil
		}
	}

	// Overlay, both sides on the workspace itself: nothing is written.
	crossURI, err := s.cross.open(ctx, e.file)
	if err != nil {
		return err
	}
	variants := []*crossVariant{directVariant("direct LSP overlay: didChange, until gopls has published", s.cross, ws.root, func(text string) error {
		_, err := s.cross.c.Sync(ctx, crossURI, text)
		return err
	})}
	variants[0].close = func() error { _, err := s.cross.c.Sync(ctx, crossURI, e.orig); return err }
	if s.ours.has("go_diagnostics", "file", "text") {
		overlay := func(name string, srv *mcpServer) *crossVariant {
			return &crossVariant{name: name, direct: variants[0].name, n: n,
				run: oursOverlay(srv),
				// Naming the file without text drops the overlay.
				close: func() error {
					_, err := srv.mustCall(ctx, "go_diagnostics", map[string]any{"files": []string{e.file}})
					return err
				}}
		}
		if s.crossOurs != nil {
			variants = append(variants, overlay("goplsmcp overlay: go_diagnostics file + text", s.crossOurs))
			v := overlay(fmt.Sprintf("goplsmcp overlay, in the session of tables 1, 2, 6 and 7 (%s open in its gopls), for context", openBuffers(ctx, s.ours)), s.ours)
			v.n, v.informational = contextN, true
			if v.n > 0 {
				variants = append(variants, v)
			}
		} else {
			variants = append(variants, overlay("goplsmcp overlay: go_diagnostics file + text", s.ours))
		}
	} else {
		defer func() {
			t.add(ws.name, e.what, "goplsmcp overlay: go_diagnostics file + text", "—", "—", "—", "—", "—", "not measured: go_diagnostics takes no file + text yet")
		}()
	}
	// For context: the direct client with the importers open too.
	if s.crossOpen != nil && contextN > 0 {
		uri, err := s.crossOpen.open(ctx, e.file)
		if err != nil {
			return err
		}
		for _, f := range e.importers {
			if _, err := s.crossOpen.open(ctx, f); err != nil {
				return err
			}
		}
		v := directVariant("direct LSP overlay, the importers open too (as a session that has named them keeps them open), for context", s.crossOpen, ws.root, func(text string) error {
			_, err := s.crossOpen.c.Sync(ctx, uri, text)
			return err
		})
		v.n, v.informational, v.direct = contextN, true, variants[0].name
		v.close = func() error { _, err := s.crossOpen.c.Sync(ctx, uri, e.orig); return err }
		variants = append(variants, v)
	}
	// For context: what an editor with gopls's default settings waits.
	if contextN > 0 {
		defURI, err := s.direct.open(ctx, e.file)
		if err != nil {
			return err
		}
		v := directVariant("direct LSP overlay, gopls's default diagnosticsDelay (1 s), for context", s.direct, ws.root, func(text string) error {
			_, err := s.direct.c.Sync(ctx, defURI, text)
			return err
		})
		v.n, v.informational, v.direct = contextN, true, variants[0].name
		v.close = func() error { _, err := s.direct.c.Sync(ctx, defURI, e.orig); return err }
		variants = append(variants, v)
	}

	// Saved: each side on a copy of its own, since the writes must not
	// reach the other sides' workspaces.
	if e.noSaved == "" && s.saved != nil && s.edit != nil {
		savedPath := absPath(s.savedDisk, e.file)
		direct := directVariant("direct LSP saved: write, didChangeWatchedFiles, until gopls has published", s.saved, s.savedDisk.root, func(text string) error {
			if err := os.WriteFile(savedPath, []byte(text), 0o644); err != nil {
				return err
			}
			// The client's watcher sees the write and tells gopls,
			// as an editor's does.
			s.saved.c.Refresh()
			return nil
		})
		direct.close = func() error {
			if err := os.WriteFile(savedPath, []byte(e.orig), 0o644); err != nil {
				return err
			}
			s.saved.c.Refresh()
			return nil
		}
		editPath := absPath(s.disk, e.file)
		ours := &crossVariant{name: "goplsmcp saved: write, then go_diagnostics files", direct: direct.name, n: n,
			run: func(i int, broken bool) (time.Duration, bool, error) {
				start := time.Now()
				if err := os.WriteFile(editPath, []byte(e.text(i, broken)), 0o644); err != nil {
					return 0, false, err
				}
				a, err := callWithin(ctx, timeout, s.edit, "go_diagnostics", map[string]any{"files": []string{e.file}})
				if err != nil || a.isError {
					return 0, false, errors.Join(err, errAnswer(a))
				}
				return time.Since(start), e.crossRight(a.structured, broken), nil
			},
			close: func() error {
				if err := os.WriteFile(editPath, []byte(e.orig), 0o644); err != nil {
					return err
				}
				_, err := s.edit.mustCall(ctx, "go_diagnostics", map[string]any{"files": []string{e.file}})
				return err
			}}
		variants = append(variants, direct, ours)
	}

	oursOverlaySrv := s.ours
	if s.crossOurs != nil {
		oursOverlaySrv = s.crossOurs
	}
	t.note("%s: %s, in %s; %s. Each answer must name %s. Open in gopls before the first edit: goplsmcp's (overlay row) %s, the direct client's %s, the edited file among them.",
		ws.name, e.what, e.file, e.detail, strings.Join(e.importers, ", "), openBuffers(ctx, oursOverlaySrv), files(len(s.cross.c.OpenDocuments())))
	b.logf("  cross-package edit on %s: %s (%d samples)", ws.name, e.file, n)
	// Two unmeasured samples first, a breaking and an undoing one: the
	// first of each may type-check more than the edit's packages.
	for i := -2; i < n; i++ {
		broken := i%2 == 0
		for k := range variants {
			v := variants[(k+i+2)%len(variants)]
			if i >= v.n {
				continue
			}
			d, ok, err := v.run(i, broken)
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			if i < 0 {
				continue
			}
			v.d = append(v.d, d)
			if ok {
				v.ok++
			}
		}
	}
	byName := make(map[string]*crossVariant)
	for _, v := range variants {
		byName[v.name] = v
		if v.close != nil {
			if err := v.close(); err != nil {
				return fmt.Errorf("%s: restoring %s: %w", v.name, e.file, err)
			}
		}
	}
	for _, v := range variants {
		right := fmt.Sprintf("%d/%d", v.ok, v.n)
		if v.direct == "" {
			t.add(ws.name, e.what, v.name, fmt.Sprint(v.n), ms(v.d.p50()), ms(v.d.p95()), "—", right, "—")
			continue
		}
		direct := byName[v.direct].d.p50()
		r := float64(v.d.p50()) / float64(direct)
		met := r <= 1.5 && v.ok == v.n
		verdict := check(met)
		if v.informational {
			verdict = "—"
		}
		t.add(ws.name, e.what, v.name, fmt.Sprint(v.n), ms(v.d.p50()), ms(v.d.p95()), ratio(float64(v.d.p50()), float64(direct)), right, verdict)
		if !v.informational {
			b.rep.judge(fmt.Sprintf("4. cross-package edit on %s, %s: ≤ 1.5× gopls's publication to a direct client, every answer right", ws.name, v.name),
				fmt.Sprintf("%s (%s vs %s), %s right", ratio(float64(v.d.p50()), float64(direct)), ms(v.d.p50()), ms(direct), right), met)
		}
	}
	if e.noSaved != "" {
		t.add(ws.name, e.what, "saved (written on disk)", "—", "—", "—", "—", "—", "not measured: "+e.noSaved)
		b.rep.unavailable(fmt.Sprintf("4. cross-package edit on %s, saved: ≤ 1.5× gopls's publication to a direct client", ws.name), "not measured: "+e.noSaved)
	}
	return nil
}

// errAnswer is a tool error answer as an error, or nil.
func errAnswer(a answer) error {
	if !a.isError {
		return nil
	}
	return fmt.Errorf("go_diagnostics answered with an error: %.300s", a.text)
}

// openBuffers says how many files and overlays a goplsmcp's gopls holds
// open, as go_workspace reports it.
func openBuffers(ctx context.Context, srv *mcpServer) string {
	a, err := srv.mustCall(ctx, "go_workspace", map[string]any{})
	if err != nil {
		return "an unknown number of files"
	}
	var out struct {
		OpenBuffers int `json:"openBuffers"`
	}
	if json.Unmarshal(a.structured, &out) != nil {
		return "an unknown number of files"
	}
	return files(out.OpenBuffers)
}

// files says n files.
func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}
