package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"strings"
	"unicode/utf16"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// SignatureInput is the input of go_signature.
type SignatureInput struct {
	At
	Detailed bool `json:"detailed,omitempty" jsonschema:"full docs"`
}

// SignatureOutput is the result of go_signature.
type SignatureOutput struct {
	Note      string `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Signature string `json:"signature,omitempty" jsonschema:"the called function's signature; left out when the position is not inside a call's parentheses"`
	At        string `json:"at,omitempty" jsonschema:"the parameter the position is at, as index: name type (0-based)"`
	Doc       string `json:"doc,omitempty" jsonschema:"documentation: its first sentence, or all of it when detailed"`
	Withheld  string `json:"withheld,omitempty" jsonschema:"why the signature is not shown: the function is declared outside the workspace root"`
	Notes     Notes  `json:"notes,omitempty" jsonschema:"why there is no signature, when the position is in no call, as the text says it"`
}

// sigInvoked is LSP's SignatureHelpTriggerKind for help asked for
// explicitly, rather than while typing.
const sigInvoked = 1

// notInCall says why a signature answer has no signature.
const notInCall = "not inside the arguments of a call"

// Render implements mcp.Renderer.
func (o *SignatureOutput) Render() string {
	var parts []string
	if o.Note != "" {
		parts = append(parts, o.Note)
	}
	if o.Withheld != "" {
		return strings.Join(append(parts, o.Withheld), "\n")
	}
	if o.Signature == "" {
		return strings.Join(append(parts, o.Notes...), "\n")
	}
	parts = append(parts, o.Signature)
	if o.At != "" {
		parts = append(parts, "parameter "+o.At)
	}
	if o.Doc != "" {
		parts = append(parts, o.Doc)
	}
	return strings.Join(parts, "\n")
}

// signatureTool is go_signature's entry in the catalogue (see ToolSpec).
var signatureTool = ToolSpec{
	Name:        "go_signature",
	Title:       "Signature at a call",
	Description: "Signature help: the signature of the call around a position, and the parameter the position is at.",
	Narrow:      "narrow the call: leave detailed out",
	Instruction: "the parameters of the call at a position.",
	Skill:       "The parameters of the call at a position",
	Doc:         "signature of the call around a position, and the parameter the position is at",
	Summary:     "the signature of the call around a position",
	Framing:     []string{`^parameter \d+: `},
	Good:        Sample{Args: `{"file": "main.go", "line": 13, "column": 29}`, Want: "parameter 0: list []shapes.Shape"},
	Bad:         Sample{Args: `{"file": "main.go", "uri": "file:///x.go", "line": 1, "column": 1}`, Want: `^pass file or uri, not both`},
	Questions: []string{
		"what arguments does this call take",
		"parameter hints for a function call",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.signature) },
}

func (b *Bridge) signature(ctx context.Context, in *SignatureInput) (*SignatureOutput, error) {
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	var help *struct {
		Signatures []struct {
			Label         string `json:"label"`
			Documentation any    `json:"documentation"`
			Parameters    []struct {
				Label json.RawMessage `json:"label"`
			} `json:"parameters"`
			ActiveParameter *int `json:"activeParameter"`
		} `json:"signatures"`
		ActiveSignature int  `json:"activeSignature"`
		ActiveParameter *int `json:"activeParameter"`
	}
	// The call is an explicit request (triggerKind Invoked): gopls
	// answers none inside a string argument unless help was invoked, as
	// it would otherwise pop up while someone types a string.
	params := t.Position()
	params["context"] = map[string]any{"triggerKind": sigInvoked, "isRetrigger": false}
	if err := b.client.Call(ctx, "textDocument/signatureHelp", params, &help); err != nil {
		return nil, ask.Error(err)
	}
	out := &SignatureOutput{Note: t.Note}
	if help == nil || len(help.Signatures) == 0 {
		// gopls gives no help inside a function or composite literal
		// (it may be the argument, or the literal's own business): the
		// call around it is asked again just before the argument the
		// literal is in, where its parameter is the same.
		if line, char, ok := argumentStart(t.Src.Lines, t.Line, t.Character); ok {
			params["position"] = map[string]any{"line": line, "character": char}
			if err := b.client.Call(ctx, "textDocument/signatureHelp", params, &help); err != nil {
				return nil, ask.Error(err)
			}
		}
	}
	if help == nil || len(help.Signatures) == 0 {
		out.Notes = Notes{notInCall}
		return out, nil
	}
	i := help.ActiveSignature
	if i < 0 || i >= len(help.Signatures) {
		i = 0
	}
	sig := help.Signatures[i]
	outside, path, err := b.calleeOutside(ctx, t.Src.URI, t.Src.Line, t.Line, t.Character, sig.Label)
	if err != nil {
		return nil, err
	}
	switch {
	case outside && path == "":
		out.Withheld = "the called function's name is not found near the call, so where it is declared cannot be told and its signature is withheld"
		return out, nil
	case outside:
		out.Withheld = b.withheldNote(path)
		return out, nil
	}
	out.Signature = sig.Label
	active := help.ActiveParameter
	if sig.ActiveParameter != nil {
		active = sig.ActiveParameter
	}
	if p := active; p != nil && *p >= 0 && *p < len(sig.Parameters) {
		out.At = fmt.Sprintf("%d: %s", *p, parameterLabel(sig.Label, sig.Parameters[*p].Label))
	}
	out.Doc = strings.TrimSpace(render.MarkupText(sig.Documentation))
	if !in.Detailed {
		out.Doc = render.FirstSentence(out.Doc)
	}
	return out, nil
}

// parameterLabel reads a parameter label, which LSP sends either as the
// text itself or as UTF-16 offsets into the signature's label.
func parameterLabel(sig string, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var off [2]int
	if json.Unmarshal(raw, &off) == nil {
		u := utf16.Encode([]rune(sig))
		if 0 <= off[0] && off[0] <= off[1] && off[1] <= len(u) {
			return string(utf16.Decode(u[off[0]:off[1]]))
		}
	}
	return ""
}

// argumentStart finds, for a position inside a function or composite
// literal that is an argument of a call, the position just after the '('
// or ',' that starts that argument, where gopls answers for the call. ok
// is false when the position is in no literal inside a call's
// parentheses, or the call's '(' is more than calleeLines back.
func argumentStart(lines []string, line, char int) (l, c int, ok bool) {
	if line < 0 || line >= len(lines) {
		return 0, 0, false
	}
	first := max(0, line-calleeLines)
	var src strings.Builder
	for i := first; i < line; i++ {
		src.WriteString(lines[i] + "\n")
	}
	src.WriteString(lines[line][:iplace.ByteOffset(lines[line], char)])
	prefix := src.String()
	// The brackets open at the position, and for each '(' where its
	// current argument starts.
	type open struct {
		tok      token.Token
		argStart int // byte offset in prefix just after '(' or the last ','
	}
	var stack []open
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(prefix)), []byte(prefix), nil, 0)
	for {
		pos, tok, _ := sc.Scan()
		if tok == token.EOF {
			break
		}
		off := fset.Position(pos).Offset
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			stack = append(stack, open{tok, off + 1})
		case token.RPAREN, token.RBRACE, token.RBRACK:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case token.COMMA:
			if len(stack) > 0 {
				stack[len(stack)-1].argStart = off + 1
			}
		}
	}
	// Inside a literal: a '{' opened after the innermost '('.
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].tok != token.LPAREN {
			continue
		}
		if i == len(stack)-1 {
			return 0, 0, false // gopls was asked right inside this call
		}
		off := stack[i].argStart
		l := first + strings.Count(prefix[:off], "\n")
		col := off - (strings.LastIndexByte(prefix[:off], '\n') + 1)
		return l, iplace.UTF16Col(lines[l], col), true
	}
	return 0, 0, false
}
