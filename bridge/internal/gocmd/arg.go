package gocmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
)

// ImportPathArg checks an import path argument; like gopls mcp, it
// accepts one in Go quotes. An import path is never a file system path:
// it is made of the characters the go command allows in one (ASCII
// letters and digits, - . _ ~ +) in non-empty elements separated by /,
// none starting with a dot, so it cannot climb out of a directory, name
// an absolute path or a pattern (...), or carry an encoding.
func ImportPathArg(arg string) (string, error) {
	p := strings.TrimSpace(arg)
	if u, err := strconv.Unquote(p); err == nil {
		p = u
	}
	bad := func(why string) error {
		return fmt.Errorf("%s is not an import path (%s); pass one such as \"net/http\" or \"example.com/m/store\"", render.Quote(arg), why)
	}
	switch {
	case p == "":
		return "", bad("it is empty")
	case len(p) > 512:
		return "", bad("it is too long")
	case strings.HasPrefix(p, "-"):
		return "", bad("it starts with a dash")
	}
	for _, r := range p {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/", r)
		if !ok {
			return "", bad("only ASCII letters, digits and - . _ ~ + / may appear in one")
		}
	}
	for _, elem := range strings.Split(p, "/") {
		switch {
		case elem == "":
			return "", bad("it has an empty element")
		case strings.HasPrefix(elem, "."):
			return "", bad("an element starts with a dot")
		}
	}
	return p, nil
}
