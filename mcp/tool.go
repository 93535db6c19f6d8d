package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Tool describes a tool to clients. Its schemas are derived from the Go
// types given to [AddTool]. Name, Title, Description and Annotations are
// required: some clients reject or hide tools without them.
type Tool struct {
	// Name is 1 to 128 characters of ASCII letters, digits, '_', '-' and
	// '.'.
	Name        string
	Title       string
	Description string
	Annotations *ToolAnnotations
	Icons       []Icon
	// Narrow says what to do when a call's answer is over the result cap,
	// as the end of a sentence: "narrow the call: pass a smaller limit".
	// Empty means generic advice.
	Narrow string
}

// ToolAnnotations are the behaviour hints of a tool. Nil pointers are
// omitted.
type ToolAnnotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// A Renderer renders a tool's output as the lean text a model reads. Output
// types that do not implement it are sent as indented JSON text.
type Renderer interface {
	Render() string
}

// A Linker is a tool output that links resources. Clients of 2025-06-18 and
// later get each link as a resource_link content block after the text.
type Linker interface {
	ResourceLinks() []ResourceLink
}

// A ResourceLink points a client at a resource related to a result.
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// A ToolHandler answers one call of a tool. A returned error becomes a
// result with isError set and the error's text as its only content (no
// structuredContent), so it should be one sentence the model can act on; an
// error made with [InternalError] (the server's fault, not the call's) and a
// panic become -32603, logged.
type ToolHandler[In, Out any] func(ctx context.Context, in *In) (*Out, error)

// InternalError marks err as an unexpected failure of the server rather
// than a mistake of the call or an answer of the tool: the call is
// answered -32603 "Internal error", and err's type and a short form of its
// message are logged. Its text must hold no source text or client data.
func InternalError(err error) error { return &internalError{err} }

type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

// serverTool is a registered tool with its resolved schemas.
type serverTool struct {
	def         Tool
	inputSchema *jsonschema.Schema
	// listedInput is inputSchema as tools/list sends it (see listedInput).
	listedInput  json.RawMessage
	outputSchema *jsonschema.Schema
	input        *jsonschema.Resolved
	// decode decodes validated arguments into a new *In.
	decode func(args json.RawMessage) (any, error)
	// run calls the handler with decoded arguments and returns its output
	// (nil on error).
	run func(ctx context.Context, in any) (any, error)

	// The schemas modern clients are sent when the server offers handles
	// (see withHandle), made once.
	handleOnce   sync.Once
	handleInput  json.RawMessage
	handleOutput *jsonschema.Schema
}

// withHandle returns the tool's schemas with the handle argument, which
// doc describes, and the handle member of a result that mints one.
func (t *serverTool) withHandle(doc string) (json.RawMessage, *jsonschema.Schema) {
	t.handleOnce.Do(func() {
		in := t.inputSchema.CloneSchemas()
		in.Properties[handleArg] = &jsonschema.Schema{Type: "string", Description: doc}
		listed, err := listedInput(in)
		if err != nil {
			// The schema marshalled without it at registration.
			listed = t.listedInput
		}
		t.handleInput = listed
		t.handleOutput = t.outputSchema.CloneSchemas()
		t.handleOutput.Properties[handleArg] = &jsonschema.Schema{Type: "string"}
	})
	return t.handleInput, t.handleOutput
}

// AddTool registers a tool whose arguments decode into In and whose
// structured result is Out. Both must be structs; their JSON Schemas are
// generated from the types. The input schema takes its field descriptions
// from `jsonschema` tags; the output schema is sent without descriptions
// (tags on Out document the Go type only), with repeated objects defined
// once: see compactOutput. Every schema node has a single type (AddTool
// fails for a type whose schema would not, such as a field of type any): a
// field of Out without omitempty is required and never null, so the handler
// fills each such slice or map (with [] or {} when empty) and pointer.
func AddTool[In, Out any](s *Server, t Tool, h ToolHandler[In, Out]) error {
	if !validToolName(t.Name) {
		return fmt.Errorf("tool %q: the name must be 1 to 128 letters, digits, '_', '-' or '.'", t.Name)
	}
	if t.Title == "" || t.Description == "" || t.Annotations == nil {
		return fmt.Errorf("tool %s: Title, Description and Annotations are required", t.Name)
	}
	in, err := schemaFor[In]()
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	out, err := schemaFor[Out]()
	if err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	if err := addDebugSchemas(in, out); err != nil {
		return fmt.Errorf("tool %s: %w", t.Name, err)
	}
	plainTypes(in)
	compactOutput(out, reflect.TypeFor[Out]())
	if err := unportable(in, false); err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	if err := unportable(out, true); err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		return fmt.Errorf("tool %s: resolving input schema: %w", t.Name, err)
	}
	listed, err := listedInput(in)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	st := &serverTool{
		def:          t,
		inputSchema:  in,
		listedInput:  listed,
		outputSchema: out,
		input:        resolved,
		decode: func(args json.RawMessage) (any, error) {
			v := new(In)
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(v); err != nil {
				return nil, decodeError(err)
			}
			return v, nil
		},
		run: func(ctx context.Context, in any) (any, error) {
			res, err := h(ctx, in.(*In))
			if err != nil {
				return nil, err
			}
			if res == nil {
				return nil, errors.New("the tool returned no result")
			}
			return res, nil
		},
	}
	return s.addTool(st)
}

func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

// schemaFor generates the schema of T, adjusted for clients: every object
// schema lists properties, even when it has none.
func schemaFor[T any]() (*jsonschema.Schema, error) {
	maps, err := orderedMapSchemas(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: maps})
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("schema type is %q, not object", s.Type)
	}
	addProperties(s)
	return s, nil
}

// addProperties gives every object schema in the tree a properties map;
// some clients reject an object schema without one.
func addProperties(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if (s.Type == "object" || slices.Contains(s.Types, "object")) && s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	for _, p := range s.Properties {
		addProperties(p)
	}
	for _, d := range s.Defs {
		addProperties(d)
	}
	addProperties(s.Items)
	addProperties(s.AdditionalProperties)
	for _, list := range [][]*jsonschema.Schema{s.PrefixItems, s.AnyOf, s.OneOf, s.AllOf} {
		for _, sub := range list {
			addProperties(sub)
		}
	}
}

// validate checks args, a JSON object, against the tool's input schema and
// returns a sentence describing the first problem. Argument names and
// values the client sent are echoed shortened, if at all.
func (t *serverTool) validate(args json.RawMessage) error {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Valid JSON, but a number beyond float64; the decoder
			// does not say where.
			return errors.New("invalid arguments: a number is out of range")
		}
		return errors.New("the arguments are not valid JSON")
	}
	if obj, ok := v.(map[string]any); ok {
		if err := t.unknownArguments(obj); err != nil {
			return err
		}
	}
	if err := t.input.Validate(v); err != nil {
		return fmt.Errorf("invalid arguments: %s", schemaProblem(err))
	}
	return nil
}

// unknownArguments names the arguments the tool does not take, and the
// ones it does.
func (t *serverTool) unknownArguments(obj map[string]any) error {
	var unknown []string
	for k := range obj {
		if _, ok := t.inputSchema.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	var names []string
	for i, k := range unknown {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(unknown)-3))
			break
		}
		names = append(names, fmt.Sprintf("%q", shorten(k, 40)))
	}
	// debug goes without saying: every tool takes it.
	known := slices.DeleteFunc(slices.Sorted(maps.Keys(t.inputSchema.Properties)), func(k string) bool { return k == debugArg })
	takes := "no arguments"
	if len(known) > 0 {
		takes = strings.Join(known, ", ")
	}
	return fmt.Errorf("invalid arguments: unknown arguments [%s]; the tool takes %s", strings.Join(names, " "), takes)
}

// schemaProblem turns a validator error into a short description: the
// innermost clause, which names the field and what was wrong. A wrong type
// is said without the value, which may be anything the client sent.
func schemaProblem(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		msg = msg[i+len("validating "):]
	}
	msg = strings.TrimPrefix(msg, "root: ")
	path, rest, ok := strings.Cut(msg, ": ")
	if ok {
		field := strings.ReplaceAll(strings.TrimPrefix(strings.ReplaceAll(path, "/properties/", "/"), "/"), "/items", "[]")
		if got, want, ok := typeProblem(rest); ok {
			return fmt.Sprintf("%s must be %s, not %s", field, want, got)
		}
		msg = field + ": " + rest
	}
	msg = strings.Replace(msg, "unexpected additional properties", "unknown arguments", 1)
	return shorten(msg, 160)
}

// typeProblem reads a validator's type clause, `type: VALUE has type
// "string", want one of "null, integer"`, as the types got and wanted.
func typeProblem(clause string) (got, want string, ok bool) {
	rest, found := strings.CutPrefix(clause, "type: ")
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(rest, ` has type "`)
	if i < 0 {
		return "", "", false
	}
	rest = rest[i+len(` has type "`):]
	gotType, wants, found := strings.Cut(rest, `", want `)
	if !found {
		return "", "", false
	}
	wants = strings.Trim(strings.TrimPrefix(wants, "one of "), `"`)
	var list []string
	for _, w := range strings.Split(wants, ", ") {
		if w != "null" {
			list = append(list, article(w))
		}
	}
	if len(list) == 0 {
		list = []string{"null"}
	}
	return article(gotType), strings.Join(list, " or "), true
}

// article puts "a" or "an" before a JSON type name.
func article(typ string) string {
	switch typ {
	case "null":
		return "null"
	case "integer", "array", "object":
		return "an " + typ
	}
	return "a " + typ
}

// decodeError rewords a decoding failure that the schema did not catch,
// such as a number too large for its field.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if i := strings.LastIndex(field, "."); i >= 0 {
			field = field[i+1:]
		}
		want := te.Type.Kind().String()
		if strings.HasPrefix(want, "int") || strings.HasPrefix(want, "uint") {
			want = "an integer in range"
		}
		return fmt.Errorf("invalid arguments: %s must be %s, not %s", field, want, shorten(te.Value, 40))
	}
	return fmt.Errorf("invalid arguments: %s", shorten(err.Error(), 160))
}

// toolJSON is a tool as tools/list sends it.
type toolJSON struct {
	Name         string             `json:"name"`
	Title        string             `json:"title,omitempty"`
	Description  string             `json:"description"`
	InputSchema  json.RawMessage    `json:"inputSchema"`
	OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations   `json:"annotations,omitempty"`
	Icons        []Icon             `json:"icons,omitempty"`
}

// describe renders the tool for a session, leaving out what its protocol
// version does not have.
func (t *serverTool) describe(version string) toolJSON {
	j := toolJSON{Name: t.def.Name, Description: t.def.Description, InputSchema: t.listedInput}
	if version >= version20250326 {
		j.Annotations = t.def.Annotations
	}
	if version >= version20250618 {
		j.Title = t.def.Title
		j.OutputSchema = t.outputSchema
	}
	if version >= version20251125 {
		j.Icons = t.def.Icons
	}
	return j
}

// Content is one block of a tool result or prompt message: "text" with
// Text, or "resource_link" with URI, Name and the optional fields.
type Content struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// MarshalJSON sends the members of the block's type only: a text block
// always has text, a resource link never does.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Type == "text" {
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{c.Type, c.Text})
	}
	type link struct {
		Type        string `json:"type"`
		URI         string `json:"uri"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mimeType,omitempty"`
	}
	return json.Marshal(link{c.Type, c.URI, c.Name, c.Title, c.Description, c.MIMEType})
}

// ToolResult is the result of tools/call.
type ToolResult struct {
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// errorResult is the result of a failed call: isError and the message as
// text, never structuredContent, whatever the protocol version. A client
// that validates structuredContent against the output schema even on an
// error (the TypeScript SDK's callTool does) would otherwise replace our
// sentence with its own complaint about the schema. With debug: true (dbg
// not nil), the debug information follows the message in the text.
func errorResult(msg string, dbg *DebugInfo) *ToolResult {
	if dbg != nil {
		msg += "\n" + dbg.render()
	}
	return &ToolResult{Content: []Content{{Type: "text", Text: msg}}, IsError: true}
}

// shorten cuts s to at most n runes, marking the cut, and replaces control
// characters by their [StandIn] so that echoed client text cannot break a
// log or a message.
func shorten(s string, n int) string { return cut(s, n, false) }

// shortenKeepLines cuts s to at most n runes like shorten, but keeps line
// breaks and tabs, for multi-line text such as a log message.
func shortenKeepLines(s string, n int) string { return cut(s, n, true) }

// cut is shorten, keeping line breaks and tabs when keepLines is set.
func cut(s string, n int, keepLines bool) string {
	var b strings.Builder
	i := 0
	for _, r := range s {
		if i == n {
			b.WriteString("…")
			break
		}
		kept := keepLines && (r == '\n' || r == '\t')
		if sub, ok := StandIn(r); ok && !kept {
			b.WriteString(sub)
		} else {
			b.WriteRune(r)
		}
		i++
	}
	return b.String()
}
