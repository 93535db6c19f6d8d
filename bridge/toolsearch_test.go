package bridge_test

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/goplsmcp/goplsmcp/bridge"
)

// toolQuestions are questions as agents and the people they work for put
// them, written from how people ask (not from the tools' descriptions),
// each with the tool that answers it.
var toolQuestions = []struct{ query, tool string }{
	{"where is this function defined", "go_definition"},
	{"jump to declaration of a variable", "go_definition"},
	{"go to the definition of the type of this field", "go_definition"},
	{"find all usages of a method", "go_symbol_references"},
	{"who uses this function", "go_symbol_references"},
	{"what breaks if I change this function signature", "go_symbol_references"},
	{"blast radius of changing a struct", "go_symbol_references"},
	{"find callers of a function", "go_call_hierarchy"},
	{"what functions does this function call", "go_call_hierarchy"},
	{"call graph of a method", "go_call_hierarchy"},
	{"rename a function everywhere", "go_rename_symbol"},
	{"safely rename a variable across the project", "go_rename_symbol"},
	{"check my code compiles", "go_diagnostics"},
	{"show compile errors", "go_diagnostics"},
	{"type errors after my edit", "go_diagnostics"},
	{"did my change break other packages", "go_diagnostics"},
	{"vet warnings in this file", "go_diagnostics"},
	{"what type is this variable", "go_describe"},
	{"show the documentation of a function", "go_describe"},
	{"hover info for an identifier", "go_describe"},
	{"which types implement this interface", "go_implementations"},
	{"what interfaces does this struct satisfy", "go_implementations"},
	{"find a function by name", "go_search"},
	{"locate where a type is declared in the codebase without grep", "go_search"},
	{"search for a symbol in the standard library", "go_search"},
	{"list the functions and types in a file", "go_symbols"},
	{"outline of a go file", "go_symbols"},
	{"show me the source code of a method", "go_source"},
	{"read the body of a function without opening the whole file", "go_source"},
	{"what does package net/http export", "go_package_api"},
	{"public API of a dependency", "go_package_api"},
	{"go doc for a package", "go_package_api"},
	{"which packages import this package", "go_package_graph"},
	{"reverse dependencies of a package", "go_package_graph"},
	{"what does this package depend on", "go_package_graph"},
	{"autocomplete methods after a dot", "go_complete"},
	{"completion suggestions at the cursor", "go_complete"},
	{"what arguments does this call take", "go_signature"},
	{"parameter hints for a function call", "go_signature"},
	{"format this go file with gofmt", "go_format"},
	{"fix missing imports", "go_organize_imports"},
	{"remove unused imports", "go_organize_imports"},
	{"extract this code into a function", "go_code_actions"},
	{"fill in the struct fields", "go_code_actions"},
	{"quick fix refactoring suggestions", "go_code_actions"},
	{"security vulnerabilities in dependencies", "go_vulncheck"},
	{"is this module affected by a CVE", "go_vulncheck"},
	{"what go version and modules does this workspace use", "go_workspace"},
	{"project overview: modules, go.mod and packages", "go_workspace"},
	{"what does this file import and use from other files", "go_file_context"},
	{"type hierarchy of an interface", "go_type_hierarchy"},
	{"semantic highlighting of a file", "go_tokens"},
	{"discard my unsaved changes to a file", "go_close"},
	// Phrased about a struct's fields and methods and a file's contents.
	{"what methods and fields does this struct have", "go_describe"},
	{"list the fields of this struct type", "go_describe"},
	{"show the method set of a type", "go_describe"},
	{"which methods are defined on this type", "go_describe"},
	{"what is declared in this file", "go_symbols"},
	{"list every struct in a file with its fields and methods", "go_symbols"},
	{"summarize the contents of a file before editing it", "go_file_context"},
	{"what does this file depend on from other packages", "go_file_context"},
}

// TestToolSearch ranks the default tools for each question with BM25, as
// Codex's tool search does (over each tool's name, title, description and
// parameter names), and requires the right tool among the first three.
func TestToolSearch(t *testing.T) {
	c, _ := startConfigured(t, exampleRoot(t), bridge.Config{})
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Title       string `json:"title"`
			Description string `json:"description"`
			InputSchema struct {
				Properties map[string]any `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := c.Call(testCtx(t), "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(toolQuestions) < 40 {
		t.Fatalf("%d questions; the issue asks for at least 40", len(toolQuestions))
	}
	var docs [][]string
	names := map[string]bool{}
	for _, tool := range list.Tools {
		names[tool.Name] = true
		text := []string{tool.Name, tool.Title, tool.Description}
		for k := range tool.InputSchema.Properties {
			text = append(text, k)
		}
		docs = append(docs, searchTerms(strings.Join(text, " ")))
	}
	idx := newBM25(docs)
	for _, q := range toolQuestions {
		if !names[q.tool] {
			t.Errorf("%q: %s is not a default tool", q.query, q.tool)
			continue
		}
		ranked := idx.rank(searchTerms(q.query))
		var top []string
		for _, i := range ranked[:3] {
			top = append(top, list.Tools[i].Name)
		}
		if !slices.Contains(top, q.tool) {
			t.Errorf("%q: top 3 are %v, not %s", q.query, top, q.tool)
		}
	}
}

// stopWords are left out of queries and documents, as search engines do.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be by can do does did for from how i in into is it its me my of on or so that the their them then there these this those to was what when where which who whom why will with without you your go") {
		stopWords[w] = true
	}
}

// searchTerms splits text into lower-case words (an underscore or any
// other non-letter, non-digit ends a word), drops stop words and strips
// the common English endings, so that "callers" finds "caller".
func searchTerms(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem strips a plural or verb ending: "callers" and "caller",
// "compiles" and "compile", "implementing" and "implement" meet.
func stem(w string) string {
	switch {
	case len(w) <= 4:
		return w
	case strings.HasSuffix(w, "ies"):
		return strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return strings.TrimSuffix(w, "es")
	case strings.HasSuffix(w, "ing"):
		return strings.TrimSuffix(w, "ing")
	case strings.HasSuffix(w, "ed"):
		return strings.TrimSuffix(w, "d")
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return strings.TrimSuffix(w, "s")
	}
	return w
}

// bm25 is an Okapi BM25 index (k1 1.2, b 0.75) over documents of terms.
type bm25 struct {
	docs []map[string]int
	lens []int
	avg  float64
	df   map[string]int
}

func newBM25(docs [][]string) *bm25 {
	idx := &bm25{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		tf := map[string]int{}
		for _, w := range d {
			tf[w]++
		}
		for w := range tf {
			idx.df[w]++
		}
		idx.docs = append(idx.docs, tf)
		idx.lens = append(idx.lens, len(d))
		total += len(d)
	}
	idx.avg = float64(total) / float64(len(docs))
	return idx
}

// rank returns the documents' indexes, best match for query first.
func (idx *bm25) rank(query []string) []int {
	const k1, b = 1.2, 0.75
	n := float64(len(idx.docs))
	scores := make([]float64, len(idx.docs))
	for i, tf := range idx.docs {
		for _, q := range query {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			df := float64(idx.df[q])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(idx.lens[i])/idx.avg))
		}
	}
	order := make([]int, len(idx.docs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(scores[y], scores[x]) })
	return order
}
