package symbol

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
)

// A Ref is one reading of a symbol argument: an optional package name,
// an optional type, and a name.
type Ref struct {
	Pkg  string // package name, or ""
	Type string // type name for a field or method, or ""
	Name string
}

// Split splits a symbol argument into its dotted parts. recv reports the
// (*T).M form, whose first parts are surely a type.
func Split(sym string) (parts []string, recv bool, err error) {
	s := strings.TrimSpace(sym)
	bad := fmt.Errorf("symbol %s is not of the form Name, pkg.Name, Type.Method, pkg.Type.Method or (*Type).Method", render.Quote(sym))
	// (*T).M, (T).M and (*pkg.T).M name the method M of T.
	if strings.HasPrefix(s, "(") {
		end := strings.Index(s, ")")
		if end < 0 {
			return nil, false, fmt.Errorf("symbol %s has an unclosed parenthesis; write (*Type).Method or Type.Method", render.Quote(sym))
		}
		r := strings.TrimPrefix(s[1:end], "*")
		if !strings.HasPrefix(s[end+1:], ".") {
			return nil, false, bad
		}
		s, recv = r+s[end+1:], true
	}
	// Type parameters of a receiver, as in (*Box[T]).Get, say nothing
	// about which method is meant.
	for {
		i := strings.Index(s, "[")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "]")
		if j < 0 {
			return nil, false, bad
		}
		s = s[:i] + s[i+j+1:]
	}
	parts = strings.Split(s, ".")
	for _, p := range parts {
		if !IsIdent(p) {
			return nil, false, bad
		}
	}
	if len(parts) > 3 {
		return nil, false, fmt.Errorf("symbol %s has too many parts; the longest form is pkg.Type.Method", render.Quote(sym))
	}
	if recv && len(parts) < 2 {
		return nil, false, bad
	}
	return parts, recv, nil
}

// IsIdent reports whether s is a Go identifier and no keyword.
func IsIdent(s string) bool {
	// Letters and digits as Go defines them, not a keyword: U+2028, a
	// bidirectional override or a space is no part of a name.
	return token.IsIdentifier(s)
}

// Readings lists what the parts can mean, without a file for context.
func Readings(parts []string, recv bool) []Ref {
	switch len(parts) {
	case 1:
		return []Ref{{Name: parts[0]}}
	case 2:
		if recv {
			return []Ref{{Type: parts[0], Name: parts[1]}}
		}
		return []Ref{{Pkg: parts[0], Name: parts[1]}, {Type: parts[0], Name: parts[1]}}
	}
	return []Ref{{Pkg: parts[0], Type: parts[1], Name: parts[2]}}
}
