package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// FileMetadataInput is the input of go_file_metadata, gopls mcp's
// optional tool.
type FileMetadataInput struct {
	File string `json:"file" jsonschema:"the Go file (root-relative or absolute)"`
}

// FileMetadataOutput is the result of go_file_metadata.
type FileMetadataOutput struct {
	Package string   `json:"package" jsonschema:"the import path of the file's package"`
	Name    string   `json:"name,omitempty" jsonschema:"the package's name"`
	Files   []string `json:"files" jsonschema:"the package's files, as gopls builds it"`
}

// Render implements mcp.Renderer.
func (o *FileMetadataOutput) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s", o.Package)
	if o.Name != "" {
		fmt.Fprintf(&b, " (%s)", o.Name)
	}
	fmt.Fprintf(&b, ", %s:", render.Plural(len(o.Files), "file"))
	for _, f := range o.Files {
		b.WriteString("\n" + f)
	}
	return b.String()
}

// fileMetadataTool is go_file_metadata's entry in the catalogue (see ToolSpec).
var fileMetadataTool = ToolSpec{
	Name:        "go_file_metadata",
	Title:       "File's package",
	Description: "The package a Go file belongs to: its import path, name and files (gopls mcp's go_file_metadata).",
	Optional:    true,
	Instruction: "gopls mcp's optional tools, under its names and parameters.",
	Doc:         "the package of a `file`: its import path, name and files",
	Framing:     []string{`^package `, `, \d+ files?:$`},
	Good:        Sample{Args: `{"file": "main.go"}`, Want: "package example.com/shapes (main), 1 file:"},
	Bad:         Sample{Args: `{"file": "missing.go"}`, Want: `^file "missing\.go" does not exist; `},
	add:         func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.fileMetadata) },
}

func (b *Bridge) fileMetadata(ctx context.Context, in *FileMetadataInput) (*FileMetadataOutput, error) {
	src, err := b.buffers.OpenFile(ctx, b.caller(ctx), in.File)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	pkg, err := b.graph.FilePackage(ctx, src.Path)
	if err != nil {
		return nil, err
	}
	out := &FileMetadataOutput{Package: pkg.Path, Name: pkg.Name, Files: []string{}}
	for _, f := range pkg.Files {
		out.Files = append(out.Files, b.displayPath(f))
	}
	return out, nil
}
