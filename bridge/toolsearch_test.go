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

// TestToolSearch ranks the default tools for each question with BM25, as
// Codex's tool search does (over each tool's name, title, description and
// parameter names), and requires the right tool among the first three
// for each of the catalogue's questions (ToolSpec.Questions): questions as
// agents and the people they work for put them, written from how people
// ask rather than from the descriptions.
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
	type question struct{ query, tool string }
	var questions []question
	for _, spec := range bridge.Catalogue() {
		if spec.Optional {
			continue
		}
		if len(spec.Questions) == 0 {
			t.Errorf("%s has no Questions in its catalogue entry; add how agents ask for it", spec.Name)
		}
		for _, q := range spec.Questions {
			questions = append(questions, question{q, spec.Name})
		}
	}
	if len(questions) < 40 {
		t.Fatalf("%d questions; the issue asks for at least 40", len(questions))
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
	for _, q := range questions {
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

// TestDescribeMembers: the tool the search ranks for how people ask about
// a type's members (TestToolSearch, go_describe's Questions) answers them
// in one call: with detailed, a struct's methods and the fields and
// methods it promotes from embedded types, and an interface's methods,
// those of embedded interfaces included.
func TestDescribeMembers(t *testing.T) {
	root := realTempDir(t)
	writeWorkspaceFile(t, root, "go.mod", []byte("module example.com/m\n\ngo 1.26\n"))
	writeWorkspaceFile(t, root, "a/a.go", []byte(`package a

import "strings"

type Base struct{ ID int }

func (Base) Hello() string { return "" }

type Outer struct {
	Base
	*strings.Builder
	Name string
}

func (o *Outer) Own() {}

type Greeter interface {
	Hello() string
	Namer
}

type Namer interface{ Name() string }
`))
	c := startStack(t, root)
	for _, tc := range []struct {
		symbol string
		want   []string
	}{
		{"Outer", []string{
			"Name string",                         // its own field
			"ID int // through Base",              // a promoted field
			"func (o *Outer) Own()",               // its own method
			"func (Base) Hello() string",          // promoted from a struct
			"func (b *strings.Builder) Len() int", // promoted through a pointer
		}},
		{"Greeter", []string{
			"Hello() string",             // its own method
			"func (Namer) Name() string", // from an embedded interface
		}},
	} {
		res, err := c.CallTool(testCtx(t), "go_describe", map[string]any{"file": "a/a.go", "symbol": tc.symbol, "detailed": true})
		if err != nil || res.IsError {
			t.Fatalf("go_describe %s: %v %s", tc.symbol, err, res.Text())
		}
		for _, w := range tc.want {
			if !strings.Contains(res.Text(), w) {
				t.Errorf("go_describe %s, detailed, does not list %q:\n%s", tc.symbol, w, res.Text())
			}
		}
	}
}
