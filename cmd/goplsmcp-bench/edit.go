package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
)

// editFile is the file the edit loop changes.
const editFile = "inventory/item.go"

// editText returns the i-th edit of the original text: every other one
// adds a type error, and each differs from all before it, so that gopls
// type-checks anew every time instead of finding the answer cached.
func editText(orig string, i int) (text string, broken bool) {
	if i%2 == 1 {
		return orig + fmt.Sprintf("\nvar edit%d int = \"not an int\"\n", i), true
	}
	return orig + fmt.Sprintf("\n// edit %d\n", i), false
}

// diagCount reads the number of diagnostics from a go_diagnostics
// answer's structured content: those listed under each file (every file,
// or only file when it is not ""), and those beyond the limit.
func diagCount(structured []byte, file string) (int, bool) {
	var out bridge.DiagnosticsOutput
	if err := json.Unmarshal(structured, &out); err != nil {
		return 0, false
	}
	n := 0
	out.Files.All(func(f string, d bridge.FileDiagnostics) {
		if file == "" || f == file {
			n += len(d.At) + d.More
		}
	})
	return n, true
}

// editLoop times "change a file, get its diagnostics": gopls's own time
// through the direct client (didChange + textDocument/diagnostic) against
// goplsmcp given the new text as an overlay (file + text), and against
// goplsmcp after the new text is written to disk. The variants take turns
// on each edit.
func (b *bench) editLoop(ctx context.Context, ws *workspace, s *servers) error {
	t := b.table(4, "Edit loop",
		fmt.Sprintf("Change %s and get its diagnostics, %d times; every other edit adds a type error and every edit is new text, so gopls type-checks each time. The direct client sends didChange then textDocument/diagnostic (gopls's own diagnosis time); goplsmcp gets the text as an overlay (go_diagnostics file + text), or finds it on disk (the file is written, then go_diagnostics files, on a separate copy of the fixture). The variants take turns on each edit. Target: goplsmcp ≤ 1.5× gopls's own time; no fixed sleep anywhere.", editFile, b.plan.editN),
		"variant", "p50", "p95", "ratio to direct p50", "correct answers", "met")
	orig, err := os.ReadFile(filepath.Join(ws.root, editFile))
	if err != nil {
		return err
	}
	uri, err := s.direct.open(ctx, editFile)
	if err != nil {
		return err
	}
	// The count in the unedited file, which the good edits must match.
	base, err := s.direct.c.DiagnoseFile(ctx, uri)
	if err != nil {
		return err
	}

	// A variant applies edit i and returns the number of diagnostics.
	type variant struct {
		name  string
		run   func(text string) (int, error)
		d     samples
		ok    int
		close func() error
	}
	oursCount := func(srv *mcpServer, args map[string]any) (int, error) {
		a, err := srv.mustCall(ctx, "go_diagnostics", args)
		if err != nil {
			return 0, err
		}
		// The edited file's: the workspace's other errors are listed too.
		n, ok := diagCount(a.structured, editFile)
		if !ok {
			return -1, nil
		}
		return n, nil
	}
	variants := []*variant{{
		name: "direct LSP: didChange + textDocument/diagnostic",
		run: func(text string) (int, error) {
			if _, err := s.direct.c.Sync(ctx, uri, text); err != nil {
				return 0, err
			}
			diags, err := s.direct.c.DiagnoseFile(ctx, uri)
			return len(diags), err
		},
		close: func() error { _, err := s.direct.c.Sync(ctx, uri, string(orig)); return err },
	}}
	if s.ours.has("go_diagnostics", "file", "text") {
		variants = append(variants, &variant{
			name: "goplsmcp overlay: go_diagnostics file + text",
			run: func(text string) (int, error) {
				return oursCount(s.ours, map[string]any{"file": editFile, "text": text})
			},
			// Naming the file without text drops the overlay.
			close: func() error {
				_, err := s.ours.mustCall(ctx, "go_diagnostics", map[string]any{"files": []string{editFile}})
				return err
			},
		})
	} else {
		defer func() {
			t.add("goplsmcp overlay: go_diagnostics file + text", "—", "—", "—", "—", "not measured: go_diagnostics takes no file + text yet")
			b.rep.unavailable("4. edit loop, overlay (file + text): ≤ 1.5× gopls's own diagnosis time", "go_diagnostics takes no file + text yet")
		}()
	}

	// On disk: a server on a copy of its own, since the writes must not
	// reach the servers the other measurements use.
	srv := s.edit
	path := filepath.Join(s.disk.root, editFile)
	// Warm it as the shared server is warm.
	if _, err := srv.mustCall(ctx, "go_diagnostics", map[string]any{"files": []string{editFile}}); err != nil {
		return err
	}
	variants = append(variants, &variant{
		name: "goplsmcp on disk: write, then go_diagnostics files",
		run: func(text string) (int, error) {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return 0, err
			}
			return oursCount(srv, map[string]any{"files": []string{editFile}})
		},
		// The cross-package loop uses the same copy after this one.
		close: func() error {
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				return err
			}
			_, err := srv.mustCall(ctx, "go_diagnostics", map[string]any{"files": []string{editFile}})
			return err
		},
	})

	for i := 0; i < b.plan.editN; i++ {
		text, broken := editText(string(orig), i)
		for k := range variants {
			v := variants[(k+i)%len(variants)]
			start := time.Now()
			n, err := v.run(text)
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			v.d = append(v.d, time.Since(start))
			if n >= 0 && (n > len(base)) == broken {
				v.ok++
			}
		}
	}
	direct := variants[0].d.p50()
	for i, v := range variants {
		if err := v.close(); err != nil {
			return err
		}
		correct := fmt.Sprintf("%d/%d", v.ok, b.plan.editN)
		if i == 0 {
			t.add(v.name, ms(v.d.p50()), ms(v.d.p95()), "1.00×", correct, "—")
			continue
		}
		r := float64(v.d.p50()) / float64(direct)
		met := r <= 1.5 && v.ok == b.plan.editN
		t.add(v.name, ms(v.d.p50()), ms(v.d.p95()), ratio(float64(v.d.p50()), float64(direct)), correct, check(met))
		b.rep.judge("4. edit loop, "+v.name+": ≤ 1.5× gopls's own diagnosis time, every answer correct",
			fmt.Sprintf("%s (%s vs %s), %s correct", ratio(float64(v.d.p50()), float64(direct)), ms(v.d.p50()), ms(direct), correct), met)
	}
	// Then the edit that breaks other packages, with gopls idle again.
	if b.plan.settleSections {
		if _, quiet := settle(ctx, s.pids(), b.plan.settleMax); !quiet {
			b.logf("warning: gopls still busy before the cross-package edit loop; measuring anyway")
		}
	}
	return b.crossEditLoop(ctx, ws, s)
}
