package place

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// CheckModText refuses unsaved text for a go.mod or go.work file at path
// that would point gopls at a directory outside the root: a replace by a
// directory, or a use. gopls would load that directory's code and show it
// in answers, bytes the gate would never read itself. Text that does not
// parse is left to gopls, which parses it the same way, reports it and
// loads nothing from it.
func (g *Gate) CheckModText(path, text string) error {
	var dirs []string
	switch filepath.Base(path) {
	case "go.mod":
		// Parse, not ParseLax, which leaves out replace directives.
		f, err := modfile.Parse(path, []byte(text), nil)
		if err != nil {
			return nil
		}
		for _, r := range f.Replace {
			if r.New.Version == "" && modfile.IsDirectoryPath(r.New.Path) {
				dirs = append(dirs, r.New.Path)
			}
		}
	case "go.work":
		f, err := modfile.ParseWork(path, []byte(text), nil)
		if err != nil {
			return nil
		}
		for _, u := range f.Use {
			dirs = append(dirs, u.Path)
		}
		for _, r := range f.Replace {
			if r.New.Version == "" && modfile.IsDirectoryPath(r.New.Path) {
				dirs = append(dirs, r.New.Path)
			}
		}
	default:
		return nil
	}
	for _, d := range dirs {
		p := filepath.FromSlash(d)
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), p)
		}
		if !g.dirInRoot(filepath.Clean(p)) {
			return fmt.Errorf("the unsaved %s points at %q, a directory outside the workspace root, whose code goplsmcp does not show; keep replace and use directives inside the root", filepath.Base(path), d)
		}
	}
	return nil
}

// dirInRoot reports whether p, clean and absolute, is inside the root as
// written and through the symbolic links of its nearest existing
// ancestor.
func (g *Gate) dirInRoot(p string) bool {
	if !Within(g.root, p) {
		return false
	}
	for d := p; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return Within(g.root, real)
		}
		if _, err := os.Lstat(d); err == nil {
			return false // a link that leads nowhere yet
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
