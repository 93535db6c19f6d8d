package bridge

import (
	"context"
	"errors"
	"fmt"
	"github.com/goplsmcp/goplsmcp/bridge/internal/action"
	"log/slog"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/edit"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/graph"
	"github.com/goplsmcp/goplsmcp/bridge/internal/hierarchy"
	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"github.com/goplsmcp/goplsmcp/bridge/internal/modules"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/target"
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
	// Limits are the limits in force, for goplsmcp://limits; zero fields
	// mean the defaults.
	Limits Limits
	// AllowWrite lets go_rename_symbol, go_format, go_organize_imports and
	// go_code_actions write their edits when a call says apply: true.
	AllowWrite bool
	// BuildContext says how much of the build context was set at launch,
	// for go_workspace and goplsmcp://limits to report.
	BuildContext BuildContext
	// JournalDir is where applies keep their journal (see JournalDir),
	// so that one a crash cuts short is rolled back at the next start.
	// Empty: applies keep none (tests).
	JournalDir string
	// Tools are the tools --tools names, if it was given: those of
	// OptionalTools among them are registered too. Other names are for
	// mcp.Server.KeepTools to check.
	Tools []string
}

// BuildContext counts what the command line fixed of gopls's build
// context. Only the counts are reported, never the values, which may
// hold paths or secrets of the machine.
type BuildContext struct {
	BuildFlags int `json:"buildFlags" jsonschema:"build flags given with --build-flags"`
	Env        int `json:"env" jsonschema:"environment variables given with --env"`
	Settings   int `json:"settings" jsonschema:"gopls settings given with --settings"`
}

// A Bridge holds what the tools share: the root, the gopls client and the
// paths of the Go installation.
type Bridge struct {
	root   string
	client *lspclient.Client
	log    *slog.Logger
	env    gocmd.Env
	// reads is the one read gate: every file read for an answer goes
	// through it (see package place).
	reads *iplace.Gate
	// addr turns file and uri arguments into paths confined to the root
	// (see place.Resolver).
	addr   *iplace.Resolver
	limits Limits
	// allowWrite lets the edit tools write (see Config.AllowWrite).
	allowWrite bool
	// journal is where applies keep their journal (Config.JournalDir).
	journal string
	// tools are the tools --tools names (see Config.Tools).
	tools    []string
	buildCtx BuildContext
	// edits proposes the edit tools' changes and writes them when
	// allowed and asked (see edit.Proposer).
	edits *edit.Proposer
	// actions asks gopls for code actions and quick fixes, and their
	// edits (see action.Asker).
	actions *action.Asker
	// afterCompute, if set, runs when gopls has answered a rename and
	// before the edits are taken from its answer (tests).
	afterCompute func()
	// buffers opens the sources calls work on, each session's own (see
	// buffer.Set).
	buffers *buffer.Set
	// targets turns a call's At into the place it names (see
	// target.Resolver).
	targets *target.Resolver
	// hierarchies walks gopls's call and type hierarchies (see
	// hierarchy.Walker).
	hierarchies *hierarchy.Walker
	// graph finds the workspace's packages and their importers (see
	// graph.Graph).
	graph *graph.Graph
	// lines and parsed keep the lines of the files shown lately and the
	// syntax trees symbols were resolved in.
	lines  memo.Lines
	parsed memo.Trees
	// diags are go_diagnostics's answers from gopls since its last change.
	diags diagCache
	// baselines is the last baseline an edit was measured against (see
	// impact.go).
	baselines baselineCache
	// apis are go_package_api's packages since gopls's last change.
	apis memo.Gen[apiKey, apiEntry]
	// searches are go_search's answers from gopls since its last change.
	searches memo.Gen[string, []symbolInfo]
	// defs are the declarations gopls found for go_file_context's uses
	// since its last change.
	defs memo.Gen[defKey, definitions]
	// build is how gopls chooses a package's files.
	build gocmd.Build
	// rootBuild says which files are in the build gopls makes for the
	// root (see gocmd.RootBuild).
	rootBuild *gocmd.RootBuild
	// mods are the workspace's modules, as on disk and as gopls builds
	// them, and the hints for those the module cache lacks.
	mods *modules.Modules
	// sessions are the MCP sessions' buffers, by session id; gate decides
	// whose overlays gopls holds (see sessions.go).
	sessionsMu sync.Mutex
	sessions   map[string]*buffer.Session
	skewTold   map[string]bool // the sessions told of a skew (noteSkew)
	gate       gate
}

// New returns a bridge for cfg, built in this order: the go command's
// environment and build context (from the client), the session gate, the
// machinery over them (initReads), and the bounds of the answer caches.
// Register then adds the tools and the middleware.
func New(cfg Config) (*Bridge, error) {
	if cfg.Root == "" || cfg.Client == nil {
		return nil, errors.New("bridge: Root and Client are required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Bridge{root: cfg.Root, client: cfg.Client, log: log, limits: cfg.Limits,
		allowWrite: cfg.AllowWrite, journal: cfg.JournalDir, buildCtx: cfg.BuildContext, sessions: map[string]*buffer.Session{}, skewTold: map[string]bool{}, tools: cfg.Tools}
	b.env.Extra, b.env.Log = cfg.Client.OfflineGoEnv(), log
	b.build.From = func() ([]string, string, []string) {
		return cfg.Client.GoEnv(), lspclient.LookupEnv(cfg.Client.OfflineGoEnv(), "GOFLAGS"), cfg.Client.BuildFlags()
	}
	// The session gate first: the buffers initReads makes switch sessions
	// through it.
	b.gate.init()
	b.initReads()
	b.diags.files.Max, b.diags.fixes.Max = maxCachedDiagFiles, maxCachedFixes
	b.apis.Max = maxCachedPackages
	// A few queries: an agent repeats its searches within a task.
	b.searches.Max = 16
	b.defs.Max = maxCachedDefinitions
	return b, nil
}

// Register adds every tool to s (the catalogue's: see catalogue.go), the
// resources and prompts, then the tool middleware. This list is the one
// place that orders the middleware: each added wraps those before it, so
// a call passes them from the last to the first on its way in:
//
//   - visible, outermost: whatever leaves, answer or error, is shown
//     without a repository's control characters;
//   - debugTrace: debug: true reports the gopls requests the call made;
//   - progressRelay: gopls's progress reaches a call with a token;
//   - missingHints: an error a missing module causes says how to get it;
//   - sessions: the call runs as its session, through the gate that
//     decides whose overlays gopls holds;
//   - sessionRights, innermost: apply: true is refused to a session of a
//     shared server that may not write (rights.go).
func (b *Bridge) Register(s *mcp.Server) error {
	for _, add := range []func(*mcp.Server) error{
		b.addTools,
		b.addResources,
		b.addPrompts,
		b.addSessionRights,
		b.addSessions,
		b.addMissingHints,
		b.addProgressRelay,
		b.addDebugTrace,
		b.addVisible,
	} {
		if err := add(s); err != nil {
			return fmt.Errorf("registering tools: %w", err)
		}
	}
	return nil
}

// editing are the annotations of a tool that proposes edits: read-only,
// unless writes are allowed, when apply: true writes them.
func (b *Bridge) editing() *mcp.ToolAnnotations {
	if !b.allowWrite {
		return readOnly()
	}
	t, f := true, false
	return &mcp.ToolAnnotations{ReadOnlyHint: &f, DestructiveHint: &t, IdempotentHint: &f, OpenWorldHint: &f}
}

// readOnly are the annotations of a tool that only reads.
func readOnly() *mcp.ToolAnnotations {
	t, f := true, false
	return &mcp.ToolAnnotations{ReadOnlyHint: &t, IdempotentHint: &t, OpenWorldHint: &f}
}

// initReads builds the machinery the tools share, each part from those
// made before it:
//
//  1. the read gate of the root and the resolver of file and uri
//     arguments (readGate): every byte read for an answer passes them;
//  2. the edit proposer, the only write path (editPath), and the code
//     actions asked of gopls over it;
//  3. the buffers calls work on (bufferSet), through the read gate and
//     the session gate New made first;
//  4. what works over the buffers (overBuffers): targets, the package
//     graph, hierarchies and modules.
//
// The proposer asks the buffers, made after it, only when a call runs.
func (b *Bridge) initReads() {
	b.readGate()
	b.editPath()
	b.bufferSet()
	b.overBuffers()
}

// readGate makes the read gate of the root, which learns GOROOT and
// GOMODCACHE from the go command on first need, and the resolver of
// arguments over it.
func (b *Bridge) readGate() {
	b.reads = iplace.New(b.root, func() (string, string) {
		return b.env.Dirs()
	})
	b.addr = iplace.NewResolver(b.reads, func(dir string) (uint64, bool) {
		if b.client == nil { // tests of paths alone have none
			return 0, false
		}
		return b.client.DiskEpoch(dir)
	})
}

// editPath makes the edit proposer and the code actions asker over it.
func (b *Bridge) editPath() {
	b.edits = &edit.Proposer{Gate: b.reads, AllowWrite: b.allowWrite, Journal: b.journal, ResultBytes: b.limits.withDefaults().ResultBytes,
		Foreign:  func(ctx context.Context, uri string) bool { return b.buffers.Foreign(b.caller(ctx), uri) },
		Document: func(uri string) (string, int32, bool) { return b.client.Document(uri) },
		Epoch:    func() uint64 { e, _ := b.client.DiskEpoch(b.root); return e },
		Changed:  func(path string, since uint64) (bool, bool) { return b.client.ChangedSince(path, since) },
		Written:  func(written map[string]bool) { b.client.Written(written) },
		Unsaved:  func(uri string) bool { return b.client != nil && b.client.EditorDirty(uri) }}
	b.actions = &action.Asker{Client: b.client, Proposer: b.edits, Log: b.log}
}

// bufferSet makes the buffers, which know the files gopls builds without
// having them open from the root's build.
func (b *Bridge) bufferSet() {
	var env func(string) string
	if b.client != nil { // tests of paths alone have none
		env = b.client.GoVar
	}
	b.rootBuild = &gocmd.RootBuild{Gate: b.reads, Build: &b.build, Env: env}
	b.buffers = buffer.NewSet(buffer.SetConfig{Client: b.client, Reads: b.reads, Addr: b.addr, Lines: &b.lines, InBuild: b.rootBuild.Has, OtherBuild: b.rootBuild.Excludes,
		Gate: b.gate.Gate, Fault: mcp.InternalError, Log: b.log,
		TextChars: b.limits.withDefaults().TextChars, Timeout: b.limits.withDefaults().Timeout,
		KeptBytes: max(MaxKeptText, 4*b.limits.withDefaults().TextChars)})
}

// overBuffers makes the parts that find places and packages in the
// buffers.
func (b *Bridge) overBuffers() {
	b.targets = &target.Resolver{Buffers: b.buffers, Client: b.client, Reads: b.reads, Build: &b.build, Trees: &b.parsed, Withheld: b.withheldNote}
	b.graph = &graph.Graph{Root: b.root, Client: b.client, Buffers: b.buffers, Reads: b.reads, Lines: &b.lines, Env: &b.env, Build: &b.build}
	b.hierarchies = &hierarchy.Walker{Client: b.client, Buffers: b.buffers, Reads: b.reads}
	b.mods = modules.New(modules.Config{Client: b.client, Reads: b.reads, Env: &b.env, Buffers: b.buffers,
		GoVersion: b.goVersion, Log: b.log})
}

// displayPath shows path relative to the root when inside it, and as
// $GOROOT/... or $GOMODCACHE/... in the Go installation or the module
// cache (see place.Gate.Display).
func (b *Bridge) displayPath(path string) string { return b.reads.Display(path) }

// displayURI is displayPath for a file:// URI.
func (b *Bridge) displayURI(uri string) string {
	p, err := lspclient.URIPath(uri)
	if err != nil {
		return uri
	}
	return b.displayPath(p)
}
