package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/visible"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// DefaultTextChars bounds the source text one call may pass in text, in
// characters, when Limits.TextChars is zero.
const DefaultTextChars = 512 << 10

// Limits are the bounds in force, as goplsmcp://limits reports them. The
// command passes the values it configured the protocol layer and the gopls
// client with; zero fields mean the defaults.
type Limits struct {
	// MessageBytes bounds one incoming message.
	MessageBytes int
	// ResultBytes bounds the JSON of one tool result.
	ResultBytes int
	// TextChars bounds the source text of one call's text argument.
	TextChars int
	// Timeout bounds each request to gopls.
	Timeout time.Duration
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	if l.MessageBytes <= 0 {
		l.MessageBytes = mcp.DefaultMaxMessageBytes
	}
	if l.ResultBytes <= 0 {
		l.ResultBytes = mcp.DefaultMaxResultBytes
	}
	if l.TextChars <= 0 {
		l.TextChars = DefaultTextChars
	}
	if l.Timeout <= 0 {
		l.Timeout = lspclient.DefaultTimeout
	}
	return l
}

// The resources' URIs.
const (
	keywordsURI    = "goplsmcp://keywords"
	predeclaredURI = "goplsmcp://predeclared"
	limitsURI      = "goplsmcp://limits"
	workspaceURI   = "goplsmcp://workspace"
)

func (b *Bridge) addResources(s *mcp.Server) error {
	static := func(v any) mcp.ResourceHandler {
		return func(ctx context.Context) (string, error) { return jsonText(v) }
	}
	for _, r := range []struct {
		res mcp.Resource
		h   mcp.ResourceHandler
	}{
		{mcp.Resource{URI: keywordsURI, Name: "keywords", Title: "Go keywords",
			Description: "The 25 reserved words of Go, from the go/token package."}, static(goKeywords())},
		{mcp.Resource{URI: predeclaredURI, Name: "predeclared", Title: "Go predeclared identifiers",
			Description: "Go's predeclared types, constants, zero value and built-in functions, from the go/types universe."}, static(predeclared())},
		{mcp.Resource{URI: limitsURI, Name: "limits", Title: "goplsmcp limits",
			Description: "The limits in force: message and result sizes, source text per call, gopls request timeout; and how many build flags, environment variables and gopls settings were fixed at launch."}, static(b.limitsJSON())},
		{mcp.Resource{URI: workspaceURI, Name: "workspace", Title: "Go workspace summary",
			Description: "What go_workspace answers: modules, versions, build kind, package count, load state."},
			func(ctx context.Context) (string, error) { return b.asSession(ctx, b.workspaceJSON) }},
	} {
		r.res.MIMEType = "application/json"
		if err := mcp.AddResource(s, r.res, visible.Resource(r.h)); err != nil {
			return err
		}
	}
	return nil
}

// workspaceJSON is the content of goplsmcp://workspace: what go_workspace
// answers the session.
func (b *Bridge) workspaceJSON(ctx context.Context) (string, error) {
	out, err := b.workspace(ctx, "")
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		// gopls's failure, said as the tool would, and logged
		// as any internal failure is.
		b.log.Error("reading goplsmcp://workspace failed", "type", fmt.Sprintf("%T", err), "error", shortMessage(err))
		return "", &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: " + shortMessage(err)}
	}
	return jsonText(out)
}

func jsonText(v any) (string, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	return string(data), err
}

// goKeywords lists Go's keywords in go/token's order, read from its token
// table rather than typed in.
func goKeywords() []string {
	var kws []string
	// Tokens are small integers; the keywords are a contiguous run of them.
	for tok := token.Token(0); tok < 256; tok++ {
		if tok.IsKeyword() {
			kws = append(kws, tok.String())
		}
	}
	return kws
}

// Predeclared holds Go's predeclared identifiers by kind.
type Predeclared struct {
	Types     []string `json:"types"`
	Constants []string `json:"constants"`
	Zero      []string `json:"zero"`
	Functions []string `json:"functions"`
}

// predeclared reads the identifiers of the go/types universe scope.
func predeclared() Predeclared {
	var p Predeclared
	for _, name := range types.Universe.Names() { // sorted
		switch types.Universe.Lookup(name).(type) {
		case *types.TypeName:
			p.Types = append(p.Types, name)
		case *types.Const:
			p.Constants = append(p.Constants, name)
		case *types.Nil:
			p.Zero = append(p.Zero, name)
		case *types.Builtin:
			p.Functions = append(p.Functions, name)
		}
	}
	return p
}

// LimitsJSON is the content of goplsmcp://limits.
type LimitsJSON struct {
	MessageBytes   int     `json:"messageBytes"`
	ResultBytes    int     `json:"resultBytes"`
	TextChars      int     `json:"textChars"`
	TimeoutSeconds float64 `json:"timeoutSeconds"`
	EchoChars      int     `json:"echoChars"`
	// BuildContext counts the build flags, environment variables and
	// gopls settings fixed at launch; their values are not reported.
	BuildContext BuildContext `json:"buildContext"`
}

func (b *Bridge) limitsJSON() LimitsJSON {
	l := b.limits.withDefaults()
	return LimitsJSON{
		MessageBytes:   l.MessageBytes,
		ResultBytes:    l.ResultBytes,
		TextChars:      l.TextChars,
		TimeoutSeconds: l.Timeout.Seconds(),
		EchoChars:      render.EchoChars,
		BuildContext:   b.buildCtx,
	}
}
