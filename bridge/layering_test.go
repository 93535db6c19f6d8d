package bridge_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const modulePath = "github.com/goplsmcp/goplsmcp"

// TestLayering holds the packages to what their doc.go says: each of
// mcp, lspclient, bridge and bridge/internal/... imports exactly the
// packages of this module that its "Imports:" sentence names (mcp and
// lspclient: none, "may not import any other package of this module"),
// and each internal package imports only those before it in
// bridge/doc.go's list. A new arrow fails here until the docs say so.
func TestLayering(t *testing.T) {
	module, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./mcp", "./lspclient", "./bridge/...")
	cmd.Dir = module
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{} // module-relative package -> its module-relative imports
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], modulePath), "/")
		imports[pkg] = []string{}
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				imports[pkg] = append(imports[pkg], rel)
			}
		}
		slices.Sort(imports[pkg])
	}
	var internal []string
	for pkg := range imports {
		if strings.HasPrefix(pkg, "bridge/internal/") {
			internal = append(internal, pkg)
		}
	}
	if len(internal) < 10 {
		t.Fatalf("go list found %d internal packages: %v", len(internal), internal)
	}

	for pkg, got := range imports {
		doc, err := os.ReadFile(filepath.Join(module, filepath.FromSlash(pkg), "doc.go"))
		if err != nil {
			t.Errorf("%s has no doc.go to say what it owns and imports", pkg)
			continue
		}
		want, err := declaredImports(docComment(string(doc)), module, internal)
		if err != nil {
			t.Errorf("%s/doc.go: %v", pkg, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s imports other packages than its doc.go's Imports: sentence says (-said +imported); change the code or the doc:\n%s", pkg, diff)
		}
	}

	// The order of bridge/doc.go's list.
	doc, err := os.ReadFile(filepath.Join(module, "bridge", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, m := range regexp.MustCompile(`(?m)^//   - internal/([a-z]+):`).FindAllStringSubmatch(string(doc), -1) {
		order = append(order, "bridge/internal/"+m[1])
	}
	slices.Sort(internal)
	if diff := cmp.Diff(internal, slices.Sorted(slices.Values(order))); diff != "" {
		t.Errorf("bridge/doc.go's list of internal packages (-go list +listed):\n%s", diff)
	}
	for i, pkg := range order {
		for _, imp := range imports[pkg] {
			if j := slices.Index(order, imp); j >= i {
				t.Errorf("%s imports %s, which is not before it in bridge/doc.go's order", pkg, imp)
			}
		}
	}
}

// docComment is the package comment of a doc.go, its lines joined.
func docComment(src string) string {
	var b strings.Builder
	for line := range strings.Lines(src) {
		if strings.HasPrefix(line, "package ") {
			break
		}
		if text, ok := strings.CutPrefix(strings.TrimSpace(line), "//"); ok {
			b.WriteString(strings.TrimSpace(text) + " ")
		}
	}
	return b.String()
}

var parenthetical = regexp.MustCompile(`\([^()]*\)`)

// declaredImports reads the packages of this module that a package
// comment says its package imports, module-relative and sorted: its
// "Imports:" sentence up to the first ";" or ".", names separated by
// commas and "and", each with an optional parenthetical reason; an
// internal package is named by its last element.
func declaredImports(doc, module string, internal []string) ([]string, error) {
	if strings.Contains(doc, "may not import any other package of this module") {
		return []string{}, nil
	}
	_, sentence, ok := strings.Cut(doc, "Imports: ")
	if !ok {
		return nil, fmt.Errorf(`no sentence starting "Imports:" says which packages of this module it imports`)
	}
	sentence = parenthetical.ReplaceAllString(sentence, "")
	if i := strings.IndexAny(sentence, ";."); i >= 0 {
		sentence = sentence[:i]
	}
	out := []string{}
	for _, name := range regexp.MustCompile(`,\s*|\s+and\s+`).Split(sentence, -1) {
		name = strings.TrimSpace(name)
		switch {
		case name == "" || strings.HasPrefix(name, "nothing of this module"):
		case name == "the internal packages above":
			out = append(out, internal...)
		case slices.Contains(internal, "bridge/internal/"+name):
			out = append(out, "bridge/internal/"+name)
		case name == "mcp" || name == "lspclient":
			out = append(out, name)
		default:
			return nil, fmt.Errorf("the Imports: sentence names %q, which is no package of this module", name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// TestNoOutsideCitations fails on a comment that cites a section of a
// design document the repository does not hold: the decisions the code
// relies on are in docs/design.md and the package docs.
func TestNoOutsideCitations(t *testing.T) {
	module, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// Built here, so that this file does not cite them itself.
	cites := regexp.MustCompile("DES" + "IGN|\u00a7[0-9]")
	err = filepath.WalkDir(module, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != module && (d.Name() == "testdata" || d.Name() == "bin" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if cites.MatchString(line) {
				rel, _ := filepath.Rel(module, path)
				t.Errorf("%s:%d cites a document outside the repository: %s", filepath.ToSlash(rel), i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
