package bridge

import (
	"context"
	"errors"
	"strings"

	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// CloseInput is the input of go_close.
type CloseInput struct {
	File string `json:"file,omitempty" jsonschema:"file whose overlay or buffer to forget"`
	URI  string `json:"uri,omitempty" jsonschema:"buffer uri from an earlier result"`
}

// CloseOutput is the result of go_close.
type CloseOutput struct {
	Closed  string `json:"closed,omitempty" jsonschema:"the buffer forgotten"`
	Kind    string `json:"kind,omitempty" jsonschema:"what it was, when not a file as last read: snippet, overlay (gopls sees the file on disk again) or handle (all the unsaved text it held)"`
	NotOpen string `json:"notOpen,omitempty" jsonschema:"the buffer named, when nothing was open for it"`
	Notes   Notes  `json:"notes,omitempty" jsonschema:"what forgetting it changes, as the text says it"`
}

// closeNotes say what forgetting a buffer of kind changes.
func closeNotes(kind string) Notes {
	switch kind {
	case "overlay":
		return Notes{"gopls sees the file on disk again"}
	case "handle":
		return Notes{"all the unsaved text it held is forgotten"}
	}
	return nil
}

// Render implements mcp.Renderer.
func (o *CloseOutput) Render() string {
	switch {
	case o.NotOpen != "":
		return "nothing was open for " + o.NotOpen
	case o.Kind == "snippet":
		return "forgot snippet " + o.Closed
	case o.Kind == "overlay":
		return "forgot the unsaved text of " + o.Closed + "; " + strings.Join(o.Notes, "; ")
	case o.Kind == "handle":
		return "forgot handle " + o.Closed + "; " + strings.Join(o.Notes, "; ")
	}
	return "closed " + o.Closed
}

// closeTool is go_close's entry in the catalogue (see ToolSpec).
var closeTool = ToolSpec{
	Name:        "go_close",
	Title:       "Forget a buffer",
	Description: "Forget a snippet or a file's unsaved text (by uri or file); gopls sees the file on disk again.",
	Instruction: "forget unsaved text or a snippet.",
	Skill:       "Forget unsaved text or a snippet",
	Doc:         "forget a snippet, or the unsaved text given for a file",
	Summary:     "forget a snippet or unsaved text",
	Framing:     []string{`^forgot (the unsaved text of|snippet|handle) `, `^nothing was open for `},
	Good:        Sample{Args: `{"file": "shapes/shapes.go"}`, Want: "/shapes/shapes.go"},
	Bad:         Sample{Args: `{"uri": "file:///etc/passwd"}`, Want: `^uri "file:///etc/passwd" is outside the workspace root`},
	Questions: []string{
		"discard my unsaved changes to a file",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.close) },
}

func (b *Bridge) close(ctx context.Context, in *CloseInput) (*CloseOutput, error) {
	c := b.caller(ctx)
	var uri string
	switch {
	case in.File != "" && in.URI != "":
		return nil, errors.New("pass file or uri, not both")
	case in.URI != "":
		path, err := b.addr.URI(in.URI)
		if err != nil {
			return nil, err
		}
		if path, err = b.reads.RealBuffer(render.Quote(in.URI), path); err != nil {
			return nil, err
		}
		uri = lspclient.FileURI(path)
	case in.File == "" && mcp.Handle(ctx) != "":
		// A modern call's handle alone: forget all of it, once this
		// call has ended (see mcp.ForgetHandle).
		mcp.ForgetHandle(ctx)
		return &CloseOutput{Closed: mcp.Handle(ctx), Kind: "handle", Notes: closeNotes("handle")}, nil
	case in.File != "":
		if err := iplace.CheckPathText(in.File); err != nil {
			return nil, err
		}
		if u := b.buffers.SnippetNamed(c, in.File); u != "" {
			uri = u
			break
		}
		path, err := b.addr.Buffer(in.File)
		if err != nil {
			return nil, err
		}
		uri = lspclient.FileURI(path)
	default:
		return nil, errors.New("say which buffer to forget: pass uri (from an earlier result) or file")
	}
	kind, closed, err := b.buffers.Close(ctx, c, uri)
	if err != nil {
		return nil, err
	}
	out := &CloseOutput{NotOpen: uri}
	if closed {
		out.NotOpen, out.Closed = "", uri
		if kind != "file" {
			out.Kind, out.Notes = kind, closeNotes(kind)
		}
	}
	return out, nil
}
