package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/mcp"
)

const defaultCompletionLimit = 30

// CompleteInput is the input of go_complete.
type CompleteInput struct {
	At
	Limit    int  `json:"limit,omitempty" jsonschema:"default 30"`
	Detailed bool `json:"detailed,omitempty" jsonschema:"add kinds and docs"`
}

// CompleteOutput is the result of go_complete.
type CompleteOutput struct {
	Note      string       `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Total     int          `json:"total" jsonschema:"number of candidates gopls gave"`
	Truncated bool         `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Items     []Completion `json:"items" jsonschema:"candidates, best first"`
}

// Completion is one candidate.
type Completion struct {
	Label  string `json:"label"`
	Detail string `json:"detail,omitempty" jsonschema:"its type or signature"`
	Insert string `json:"insert,omitempty" jsonschema:"the text to insert, when it is not the label"`
	Kind   string `json:"kind,omitempty" jsonschema:"func, method, var, const, field, type, keyword, ... (detailed only)"`
	Doc    string `json:"doc,omitempty" jsonschema:"documentation (detailed only)"`
}

// Render implements mcp.Renderer.
func (o *CompleteOutput) Render() string {
	var b strings.Builder
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	if o.Total == 0 {
		b.WriteString("no completions here")
		return b.String()
	}
	fmt.Fprintf(&b, "%s", plural(o.Total, "completion"))
	if o.Truncated {
		fmt.Fprintf(&b, " (%d listed; raise limit to see more)", len(o.Items))
	}
	b.WriteString("\n")
	for _, c := range o.Items {
		line := c.Label
		if c.Kind != "" {
			line += " (" + c.Kind + ")"
		}
		if c.Detail != "" {
			line += " " + c.Detail
		}
		if c.Insert != "" {
			line += " => " + c.Insert
		}
		b.WriteString(line + "\n")
		if c.Doc != "" {
			b.WriteString("\t" + strings.ReplaceAll(c.Doc, "\n", "\n\t") + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (b *Bridge) addComplete(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_complete",
		Title:       "Complete Go code",
		Description: "Completion candidates at a position, best first (e.g. fields and methods after \"x.\"), with types or signatures.",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass a smaller limit, and leave detailed out",
	}, b.complete)
}

// completionKinds names LSP completion item kinds in Go's words.
var completionKinds = [...]string{
	1: "text", 2: "method", 3: "func", 4: "constructor", 5: "field", 6: "var",
	7: "type", 8: "interface", 9: "package", 10: "property", 11: "unit",
	12: "value", 13: "enum", 14: "keyword", 15: "snippet", 16: "color",
	17: "file", 18: "reference", 19: "folder", 20: "enum member", 21: "const",
	22: "struct", 23: "event", 24: "operator", 25: "type parameter",
}

func (b *Bridge) complete(ctx context.Context, in *CompleteInput) (*CompleteOutput, error) {
	limit, err := limitOr(in.Limit, defaultCompletionLimit)
	if err != nil {
		return nil, err
	}
	t, err := b.resolve(ctx, in.At)
	if err != nil {
		return nil, err
	}
	defer t.release()
	// gopls marks every list incomplete (so that editors ask again as the
	// user types), which tells a model nothing: it is not passed on.
	var list struct {
		Items []struct {
			Label         string `json:"label"`
			Kind          int    `json:"kind"`
			Detail        string `json:"detail"`
			Documentation any    `json:"documentation"`
			InsertText    string `json:"insertText"`
			TextEdit      *struct {
				NewText string `json:"newText"`
			} `json:"textEdit"`
		} `json:"items"`
	}
	if err := b.client.Call(ctx, "textDocument/completion", t.position(), &list); err != nil {
		return nil, goplsError(err)
	}
	out := &CompleteOutput{Note: t.note, Total: len(list.Items), Items: []Completion{}}
	for _, it := range list.Items {
		if len(out.Items) == limit {
			out.Truncated = true
			break
		}
		c := Completion{Label: it.Label, Detail: it.Detail}
		insert := it.InsertText
		if it.TextEdit != nil {
			insert = it.TextEdit.NewText
		}
		if insert != it.Label {
			c.Insert = insert
		}
		if in.Detailed {
			if it.Kind > 0 && it.Kind < len(completionKinds) {
				c.Kind = completionKinds[it.Kind]
			}
			c.Doc = strings.TrimSpace(markupText(it.Documentation))
		}
		out.Items = append(out.Items, c)
	}
	return out, nil
}

// markupText returns the text of an LSP string-or-MarkupContent value.
func markupText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		s, _ := v["value"].(string)
		return s
	}
	return ""
}
