package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
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

func (b *Bridge) addFileMetadata(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_file_metadata",
		Title:       "File's package",
		Description: "The package a Go file belongs to: its import path, name and files (gopls mcp's go_file_metadata).",
		Annotations: readOnly(),
	}, b.fileMetadata)
}

func (b *Bridge) fileMetadata(ctx context.Context, in *FileMetadataInput) (*FileMetadataOutput, error) {
	src, err := b.buffers.OpenFile(ctx, b.caller(ctx), in.File)
	if err != nil {
		return nil, err
	}
	defer src.Release()
	pkg, err := b.filePackage(ctx, src.Path)
	if err != nil {
		return nil, err
	}
	out := &FileMetadataOutput{Package: pkg.path, Name: pkg.name, Files: []string{}}
	for _, f := range pkg.files {
		out.Files = append(out.Files, b.displayPath(f))
	}
	return out, nil
}

// filePkg is the package gopls builds a file in.
type filePkg struct {
	path, name string
	files      []string // absolute, in gopls's order
}

// filePackage asks gopls for the package of the file at path: the
// narrowest one that has it, as gopls mcp's tools take it (the test
// variant for a test file).
func (b *Bridge) filePackage(ctx context.Context, path string) (*filePkg, error) {
	uri := lspclient.FileURI(path)
	var syms struct {
		PackageName string
		Files       []string
	}
	if err := b.client.ExecuteCommand(ctx, "gopls.package_symbols", map[string]any{"URI": uri}, &syms); err != nil {
		return nil, goplsError(err)
	}
	var pkgs struct {
		Packages []struct {
			Path    string
			ForTest string
		}
	}
	if err := b.client.ExecuteCommand(ctx, "gopls.packages", map[string]any{"Files": []string{uri}}, &pkgs); err != nil {
		return nil, goplsError(err)
	}
	out := &filePkg{name: syms.PackageName}
	test := strings.HasSuffix(path, "_test.go")
	xtest := strings.HasSuffix(syms.PackageName, "_test")
	for _, p := range pkgs.Packages {
		var fits bool
		switch {
		case !test:
			fits = p.ForTest == ""
		case xtest:
			fits = p.ForTest != "" && strings.HasSuffix(p.Path, "_test")
		default:
			fits = p.ForTest != "" && p.Path == p.ForTest
		}
		if fits {
			out.path = p.Path
			break
		}
	}
	if out.path == "" {
		return nil, fmt.Errorf("gopls builds %s in no package of the workspace; check its build constraints and package clause with go_diagnostics", b.displayPath(path))
	}
	for _, f := range syms.Files {
		if p, err := lspclient.URIPath(f); err == nil {
			out.files = append(out.files, p)
		}
	}
	return out, nil
}
