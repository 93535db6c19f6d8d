package bridge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// CloseInput is the input of go_close.
type CloseInput struct {
	File string `json:"file,omitempty" jsonschema:"a file whose buffer to forget: an overlay given with text, or the file as last read"`
	URI  string `json:"uri,omitempty" jsonschema:"the uri of a snippet or of a file buffer, from an earlier result"`
}

// CloseOutput is the result of go_close.
type CloseOutput struct {
	URI    string `json:"uri" jsonschema:"the buffer named"`
	Closed bool   `json:"closed" jsonschema:"whether a buffer was open and is now forgotten"`
	Kind   string `json:"kind,omitempty" jsonschema:"what was forgotten: snippet, overlay, or file (the file as last read)"`
}

// Render implements mcp.Renderer.
func (o *CloseOutput) Render() string {
	if !o.Closed {
		return "nothing was open for " + o.URI
	}
	switch o.Kind {
	case "snippet":
		return "forgot snippet " + o.URI
	case "overlay":
		return "forgot the unsaved text of " + o.URI + "; gopls sees the file on disk again"
	}
	return "closed " + o.URI
}

func (b *Bridge) addClose(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:  "go_close",
		Title: "Forget a buffer",
		Description: "Forget a snippet, or the unsaved text given for a file (gopls then sees the file on disk again). " +
			"Name it by uri (from an earlier result) or file.",
		Annotations: readOnly(),
	}, b.close)
}

func (b *Bridge) close(ctx context.Context, in *CloseInput) (*CloseOutput, error) {
	var uri string
	switch {
	case in.File != "" && in.URI != "":
		return nil, errors.New("pass file or uri, not both")
	case in.URI != "":
		path, err := b.resolveURI(in.URI)
		if err != nil {
			return nil, err
		}
		uri = lspclient.FileURI(b.realIfExists(path))
	case in.File != "":
		if u := b.snippetNamed(in.File); u != "" {
			uri = u
			break
		}
		if err := checkPathText(in.File); err != nil {
			return nil, err
		}
		p := in.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(b.root, p)
		}
		p = filepath.Clean(p)
		if !within(b.root, p) {
			return nil, fmt.Errorf("file %s is outside the workspace root; pass a path inside %s", quote(in.File), b.root)
		}
		uri = lspclient.FileURI(b.realIfExists(p))
	default:
		return nil, errors.New("say which buffer to forget: pass uri (from an earlier result) or file")
	}
	out := &CloseOutput{URI: uri}
	kind := "file"
	switch {
	case b.buffers.isSnippet(uri):
		kind = "snippet"
	case b.client.IsOverlay(uri):
		kind = "overlay"
	}
	closed, err := b.client.CloseDocument(ctx, uri)
	if err != nil {
		return nil, goplsError(err)
	}
	if kind == "snippet" {
		b.buffers.forget(uri)
	}
	if closed {
		out.Closed, out.Kind = true, kind
	}
	return out, nil
}

// realIfExists resolves symbolic links in path when it exists, so that it
// names the buffer the way the bridge opened it.
func (b *Bridge) realIfExists(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil && within(b.root, real) {
		return real
	}
	return path
}
