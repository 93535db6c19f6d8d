package bridge

import (
	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"go.lsp.dev/protocol"
)

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
