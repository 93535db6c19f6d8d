package bridge

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// FileDiagnosticsInput is the input of go_file_diagnostics, gopls mcp's
// optional tool.
type FileDiagnosticsInput struct {
	File string `json:"file" jsonschema:"the Go file to diagnose (root-relative or absolute)"`
}

// FileDiagnosticsOutput is the result of go_file_diagnostics.
type FileDiagnosticsOutput struct {
	Diagnostics []FileDiagnostic `json:"diagnostics" jsonschema:"the file's diagnostics by position"`
}

// FileDiagnostic is one diagnostic of the file and its preferred quick
// fix.
type FileDiagnostic struct {
	At   string `json:"at" jsonschema:"line:col-line:col: severity: message (analyzer); 1-based, byte columns, as go vet prints them"`
	Fix  string `json:"fix,omitempty" jsonschema:"the title of its quick fix"`
	Diff string `json:"diff,omitempty" jsonschema:"the fix's edits as a unified diff"`
}

// Render implements mcp.Renderer: each diagnostic on a line, its fix's
// title and diff below it.
func (o *FileDiagnosticsOutput) Render() string {
	if len(o.Diagnostics) == 0 {
		return "no diagnostics"
	}
	var b strings.Builder
	for _, d := range o.Diagnostics {
		b.WriteString(d.At + "\n")
		if d.Fix != "" {
			b.WriteString("fix: " + d.Fix + "\n")
			b.WriteString(d.Diff)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// fileDiagnosticsTool is go_file_diagnostics's entry in the catalogue (see ToolSpec).
var fileDiagnosticsTool = ToolSpec{
	Name:        "go_file_diagnostics",
	Title:       "File diagnostics",
	Description: "Diagnostics of one Go file (parse, type and analyzer), each with its quick fix as a diff (gopls mcp's go_file_diagnostics; go_diagnostics also finds what a change breaks elsewhere).",
	Optional:    true,
	Instruction: "gopls mcp's optional tools, under its names and parameters.",
	Doc:         "the diagnostics of one `file`, each as `line:col-line:col: severity: message (analyzer)` (1-based, as `go vet` prints them) with its quick fix as a diff",
	Framing:     []string{`^no diagnostics$`},
	Good:        Sample{Args: `{"file": "broken/broken.go"}`, Want: "8:30-8:33: error: cannot use \"1\""},
	Bad:         Sample{Args: `{"file": "../outside.go"}`, Want: `^file "\.\./outside\.go" is outside the workspace root`},
	add:         func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.fileDiagnostics) },
}

func (b *Bridge) fileDiagnostics(ctx context.Context, in *FileDiagnosticsInput) (*FileDiagnosticsOutput, error) {
	src, err := b.buffers.OpenFile(ctx, b.caller(ctx), in.File)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	// gopls keeps its analyzers' fixes for open files.
	src.OpenInGopls()
	diags, err := b.client.DiagnoseFile(ctx, src.URI)
	if err != nil {
		return nil, ask.Error(err)
	}
	out := &FileDiagnosticsOutput{Diagnostics: []FileDiagnostic{}}
	if len(diags) == 0 {
		return out, nil
	}
	slices.SortStableFunc(diags, func(x, y protocol.Diagnostic) int {
		return cmp.Or(iplace.ComparePos(x.Range.Start, y.Range.Start), cmp.Compare(x.Message, y.Message))
	})
	// gopls offers an analyzer's fixes only for diagnostics it computed
	// and stored in a full diagnosis of the text it holds.
	uris, err := b.diagnosisFiles(ctx, []*buffer.Source{src})
	if err != nil {
		return nil, err
	}
	if err := b.client.DiagnoseFiles(ctx, uris); err != nil {
		return nil, ask.Error(err)
	}
	fixes, err := b.actions.QuickFixes(ctx, src, diags)
	if err != nil {
		return nil, err
	}
	for i, d := range diags {
		var at strings.Builder
		span := iplace.SpanFromLSP(src.Line(int(d.Range.Start.Line)), src.Line(int(d.Range.End.Line)), d.Range)
		fmt.Fprintf(&at, "%s: %s: %s", span, render.Severity(d.Severity), d.Message)
		if d.Source != "" && d.Source != "compiler" {
			fmt.Fprintf(&at, " (%s)", d.Source)
		}
		fd := FileDiagnostic{At: at.String()}
		if len(fixes[i]) > 0 {
			fix := fixes[i][0]
			if diff, err := b.fixDiff(fix); err == nil && diff != "" {
				fd.Fix, fd.Diff = fix.Title, diff
			}
		}
		out.Diagnostics = append(out.Diagnostics, fd)
	}
	return out, nil
}

// fixDiff renders a fix's edits as a unified diff of the files they
// change, as they are now.
func (b *Bridge) fixDiff(fix Fix) (string, error) {
	es := edit.NewSet(b.reads)
	type named struct{ path, text string }
	seen := map[string]named{} // each file named, and its text
	for _, e := range fix.Edits {
		f, ok := seen[e.File]
		if !ok {
			f.path = filepath.Join(b.root, filepath.FromSlash(e.File))
			if f.text, ok = b.buffers.CurrentText(f.path); !ok {
				return "", fmt.Errorf("cannot read %s", e.File)
			}
			seen[e.File] = f
			es.Add(f.path, f.text)
		}
		es.Add(f.path, "", e.TextEdit(f.text))
	}
	ch, err := b.edits.Changes(es)
	if err != nil {
		return "", err
	}
	return ch.Diff, nil
}
