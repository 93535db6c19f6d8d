package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
)

// derivedRegion is a marked region of a repository file that the
// catalogue writes: the text between begin and end is the region's.
type derivedRegion struct {
	file, name string
	text       func([]bridge.ToolSpec) string
}

// derivedRegions are the parts of the docs and client packages that the
// catalogue writes; TestCatalogueFiles keeps them current.
var derivedRegions = []derivedRegion{
	{"README.md", "tools", func(c []bridge.ToolSpec) string {
		return table("| tool | what it answers |", c, func(s bridge.ToolSpec) string { return s.Summary }, false)
	}},
	{"docs/tools.md", "tools", func(c []bridge.ToolSpec) string {
		return table("| tool | what it answers |", c, func(s bridge.ToolSpec) string { return s.Doc }, false)
	}},
	{"docs/tools.md", "optional tools", func(c []bridge.ToolSpec) string {
		return table("| tool | what it answers |", c, func(s bridge.ToolSpec) string { return s.Doc }, true)
	}},
	{"clients/claude/goplsmcp/skills/go-code/SKILL.md", "tools", skillTable},
}

// table is a markdown table of the default tools (or the optional ones),
// one row each.
func table(head string, c []bridge.ToolSpec, cell func(bridge.ToolSpec) string, optional bool) string {
	var b strings.Builder
	b.WriteString(head + "\n|---|---|\n")
	for _, s := range c {
		if s.Optional == optional && cell(s) != "" {
			fmt.Fprintf(&b, "| `%s` | %s |\n", s.Name, cell(s))
		}
	}
	return b.String()
}

// skillTable is the skill's table: one row per question, naming the tools
// that answer it.
func skillTable(c []bridge.ToolSpec) string {
	var b strings.Builder
	b.WriteString("| question | tool |\n|---|---|\n")
	var order []string
	tools := map[string][]string{}
	for _, s := range c {
		if s.Optional || s.Skill == "" {
			continue
		}
		if _, ok := tools[s.Skill]; !ok {
			order = append(order, s.Skill)
		}
		tools[s.Skill] = append(tools[s.Skill], "`"+s.Name+"`")
	}
	for _, q := range order {
		fmt.Fprintf(&b, "| %s | %s |\n", q, strings.Join(tools[q], ", "))
	}
	return b.String()
}

// interopCatalogue is .interop/catalogue.json: each default tool's good
// and bad sample, for the interop scripts' clients to make.
func interopCatalogue(c []bridge.ToolSpec) []byte {
	type entry struct {
		Name string          `json:"name"`
		Good json.RawMessage `json:"good"`
		Want string          `json:"want"`
		Bad  json.RawMessage `json:"bad"`
		// Error is the pattern the bad call's message matches.
		Error string `json:"error"`
	}
	var tools []entry
	for _, s := range c {
		if !s.Optional {
			tools = append(tools, entry{s.Name, json.RawMessage(s.Good.Args), s.Good.Want, json.RawMessage(s.Bad.Args), s.Bad.Want})
		}
	}
	data, err := json.MarshalIndent(map[string]any{
		"comment": "Written from bridge's catalogue by go generate ./bridge; TestCatalogueFiles keeps it current. Do not edit.",
		"tools":   tools,
	}, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(data, '\n')
}

func regionMarks(name string) (begin, end string) {
	return "<!-- catalogue: " + name + " (written by go generate ./bridge from each tool's entry; edits inside are replaced) -->\n",
		"<!-- end of catalogue: " + name + " -->\n"
}

// TestCatalogueFiles checks that the files derived from the catalogue are
// what it writes: the tools tables of the README, docs/tools.md and the
// Claude skill, and .interop/catalogue.json. With -update (go generate
// ./bridge) it writes them.
func TestCatalogueFiles(t *testing.T) {
	c := bridge.Catalogue()
	files := map[string][]byte{}
	read := func(rel string) []byte {
		if data, ok := files[rel]; ok {
			return data
		}
		data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		files[rel] = data
		return data
	}
	want := map[string][]byte{}
	for _, r := range derivedRegions {
		data := read(r.file)
		if w, ok := want[r.file]; ok {
			data = w
		}
		begin, end := regionMarks(r.name)
		i := bytes.Index(data, []byte(begin))
		j := bytes.Index(data, []byte(end))
		if i < 0 || j < i {
			t.Fatalf("%s has no region %q: put the lines\n%s%s where its table goes", r.file, r.name, begin, end)
		}
		i += len(begin)
		want[r.file] = append(append(append([]byte{}, data[:i]...), r.text(c)...), data[j:]...)
	}
	read(".interop/catalogue.json")
	want[".interop/catalogue.json"] = interopCatalogue(c)
	for rel, w := range want {
		if bytes.Equal(files[rel], w) {
			continue
		}
		if *update {
			if err := os.WriteFile(filepath.Join("..", filepath.FromSlash(rel)), w, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", rel)
			continue
		}
		t.Errorf("%s is not what the catalogue writes; run go generate ./bridge and commit it (-committed +written):\n%s", rel, cmp.Diff(string(files[rel]), string(w)))
	}
}
