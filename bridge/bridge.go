package bridge

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// Config configures a [Bridge].
type Config struct {
	// Root is the absolute, symlink-free workspace root. Every file a
	// tool accepts must resolve inside it.
	Root string
	// Client is the gopls client the tools ask.
	Client *lspclient.Client
	// Logger receives the bridge's log; nil discards it.
	Logger *slog.Logger
}

// A Bridge holds what the tools share: the root, the gopls client and the
// paths of the Go installation.
type Bridge struct {
	root   string
	client *lspclient.Client
	log    *slog.Logger
	env    goEnv
	// buffers are the snippets gopls holds for this bridge.
	buffers buffers

	goFileMu sync.Mutex
	goFile   string // a Go file in the workspace, found on first need
}

// New returns a bridge for cfg.
func New(cfg Config) (*Bridge, error) {
	if cfg.Root == "" || cfg.Client == nil {
		return nil, errors.New("bridge: Root and Client are required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Bridge{root: cfg.Root, client: cfg.Client, log: log}, nil
}

// Register adds every tool to s. The list below is the only place that
// names them all.
func (b *Bridge) Register(s *mcp.Server) error {
	for _, add := range []func(*mcp.Server) error{
		b.addSearch,
		b.addFileContext,
		b.addPackageAPI,
		b.addSymbolReferences,
		b.addRename,
		b.addDiagnostics,
		b.addDescribe,
		b.addDefinition,
		b.addImplementations,
		b.addSymbols,
		b.addComplete,
		b.addSignature,
		b.addTokens,
		b.addFormat,
		b.addOrganizeImports,
		b.addCodeActions,
		b.addCallHierarchy,
		b.addTypeHierarchy,
		b.addClose,
	} {
		if err := add(s); err != nil {
			return fmt.Errorf("registering tools: %w", err)
		}
	}
	return nil
}

// readOnly are the annotations of a tool that only reads.
func readOnly() *mcp.ToolAnnotations {
	t, f := true, false
	return &mcp.ToolAnnotations{ReadOnlyHint: &t, IdempotentHint: &t, OpenWorldHint: &f}
}
