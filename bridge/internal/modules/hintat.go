package modules

import (
	"go/parser"
	"go/token"
	pathpkg "path"
	"strconv"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
)

// HintAt returns the hint when the identifier at line and char of src
// (0-based, UTF-16) names, or is in the import of, a package of a module
// missing from the module cache: gopls knows nothing of it.
func (m *Modules) HintAt(src *buffer.Source, line, char int) string {
	if len(m.Missing()) == 0 {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src.Text, parser.ImportsOnly)
	if err != nil && f == nil {
		return ""
	}
	text := src.Line(line)
	ident := symbol.IdentAt(text, char)
	// What precedes the identifier, for a selection name.X.
	start := min(len(text), place.ByteOffset(text, char))
	for start > 0 && isIdentByte(text[start-1]) {
		start--
	}
	before := strings.TrimRight(text[:start], " \t")
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		name := pathpkg.Base(path)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		// The identifier is the package's name, or what it selects
		// (name.X), or the position is on the import itself.
		if ident == name || strings.HasSuffix(before, name+".") || strings.Contains(text, strconv.Quote(path)) {
			if hint := m.HintFor(strconv.Quote(path)); hint != "" {
				return hint
			}
		}
	}
	return ""
}

// isIdentByte reports whether c may be part of a Go identifier (bytes of
// a multi-byte letter included).
func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
