package bridge

import (
	"context"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
)

// SetBeforeWrite makes b run f after it has prepared the files of an
// apply and before it checks them, so that a test can change a file in
// that window without waiting on time.
func SetBeforeWrite(b *Bridge, f func()) { b.edits.BeforeWrite = f }

// SetAfterCompute makes b run f when gopls has computed a rename's edits
// and before they are matched with the files' text, so that a test can
// save a file while gopls computes without waiting on time.
func SetAfterCompute(b *Bridge, f func()) { b.afterCompute = f }

// quote is render.Quote, under the name paths_test.go knew it by.
func quote(s string) string { return render.Quote(s) }

// importPathArg is gocmd.ImportPathArg, under the name paths_test.go
// knew it by.
func importPathArg(arg string) (string, error) { return gocmd.ImportPathArg(arg) }

// The front of addressing moved to place.Resolver; these are the names
// paths_test.go knew it by.

func (b *Bridge) resolveFile(file string) (string, error)    { return b.addr.File(file) }
func (b *Bridge) resolveNewFile(file string) (string, error) { return b.addr.NewFile(file) }
func (b *Bridge) resolveURI(uri string) (string, error)      { return b.addr.URI(uri) }
func (b *Bridge) bufferPath(file string) (string, error)     { return b.addr.Buffer(file) }
func (b *Bridge) confined(path string) bool                  { return b.reads.Confined(path) }

// workspaceEdit is edit.WorkspaceEdit, under the name paths_test.go knew
// it by.
type workspaceEdit = edit.WorkspaceEdit

// sessionState is buffer.Session, under the name gate_test.go knew it by.
type sessionState = buffer.Session

// editsFrom is edit.Proposer.From, under the name paths_test.go knew it
// by, with no check of the files' times.
func (b *Bridge) editsFrom(ctx context.Context, we *edit.WorkspaceEdit) (*edit.Set, error) {
	return b.edits.From(ctx, we, edit.Asked{})
}

// DiagnosisFiles is what b names to gopls.diagnose_files for a call that
// holds the files at paths (absolute).
func DiagnosisFiles(ctx context.Context, b *Bridge, paths ...string) ([]string, error) {
	srcs := make([]*buffer.Source, len(paths))
	for i, p := range paths {
		srcs[i] = &buffer.Source{Path: p, URI: lspclient.FileURI(p)}
	}
	return b.diagnosisFiles(ctx, srcs)
}
