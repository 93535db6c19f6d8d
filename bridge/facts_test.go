package bridge_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge"
	"golang.org/x/tools/txtar"
)

// Claude Code's and Codex's models read structuredContent, not the text
// and not the output schema: whatever the text says, the JSON must say
// too. checkFacts holds an answer to that, fact by fact:
//
//   - every number of the text is in the JSON: as a number, as digits in
//     one of its strings or names, as the length of one of its lists or
//     objects (a count the text adds up: "4 symbols"), or in the call's
//     arguments (an echo: "over 2 levels" for depth 2); and a count (a
//     number standing before a word: "3 references", "in 2 files") is
//     a value, not digits that happen to be in a string (a position, a
//     file name): a number or a length of the JSON, an argument, or a
//     count its notes state;
//   - every word of the text is in the JSON's strings or names, or in the
//     call's arguments, once the tool's framing is taken out: the phrases
//     of its ToolSpec.Framing and commonFraming, each of which only
//     restates what the JSON's names and structure say ("3 references to
//     Foo in 2 files" over a refs object by file). A sentence that
//     explains (a cap, a scope, a hint to raise a limit) is no framing:
//     it must be among the JSON's notes;
//   - every note of the JSON is in the text, so that both channels say it
//     in the same words.
//
// It runs on every answer of the golden archives (TestGolden, and
// TestFactsGoldens on their recorded sections), of gopls mcp's replayed
// archives (TestReplayGoplsGoldens) and of the catalogue's good sample
// calls (TestOutputSchemas).
func checkFacts(t *testing.T, name, tool string, args map[string]any, text string, structured json.RawMessage) {
	t.Helper()
	if miss := missingFacts(tool, args, text, structured); len(miss) > 0 {
		t.Errorf("%s: %s: the text says what its structuredContent does not: %s (a sentence that explains belongs in the output's notes; a phrase that only restates the JSON's member names, in the ToolSpec's Framing)\ntext: %s\njson: %s", name, tool, strings.Join(miss, ", "), text, structured)
	}
}

// missingFacts is what checkFacts reports: each fact of the text missing
// from the JSON, and each note of the JSON missing from the text.
func missingFacts(tool string, args map[string]any, text string, structured json.RawMessage) []string {
	var v any
	if err := json.Unmarshal(structured, &v); err != nil {
		return []string{"something, but its structuredContent is not JSON: " + err.Error()}
	}
	// 0 is what a count left out (omitempty) says.
	known := factSet{words: map[string]bool{}, numbers: map[string]bool{"0": true}, values: map[string]bool{"0": true}}
	known.add(v, true)
	known.add(args, false)
	// A note says its counts in words, the same ones as the text's.
	for _, note := range notesIn(v) {
		for _, m := range countRun.FindAllStringSubmatch(note, -1) {
			known.values[m[1]] = true
		}
	}

	var miss []string
	for _, m := range countRun.FindAllStringSubmatch(text, -1) {
		// A count ("3 references", "in 2 files") is a number of the
		// JSON, a length in it or an argument, not digits that happen
		// to be in one of its strings (a position, a file name).
		if n := m[1]; !known.values[n] {
			miss = append(miss, "the count "+n+" "+m[2])
		}
	}
	for _, n := range digitRun.FindAllString(text, -1) {
		if !known.numbers[n] && !known.words[n] {
			miss = append(miss, "the number "+n)
		}
	}
	framed := text
	for _, re := range append(slices.Clone(commonFraming), toolFraming()[tool]...) {
		if re.MatchString(framed) {
			framingUsed.Store(re, true)
		}
		framed = re.ReplaceAllString(framed, " ")
	}
	seen := map[string]bool{}
	for _, w := range wordRun.FindAllString(framed, -1) {
		if !known.words[w] && !seen[w] {
			seen[w] = true
			miss = append(miss, strconv.Quote(w))
		}
	}
	for _, s := range notesIn(v) {
		if !strings.Contains(text, s) {
			miss = append(miss, "not the note "+strconv.Quote(s)+" (a note must be in both channels)")
		}
	}
	return miss
}

// notesIn is every note of a JSON answer: the strings of its notes
// members, at any depth (a module's, a direction's of a hierarchy).
func notesIn(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if list, ok := x.([]any); ok && k == "notes" {
				for _, n := range list {
					s, _ := n.(string)
					out = append(out, s)
				}
				continue
			}
			out = append(out, notesIn(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, notesIn(x)...)
		}
	}
	return out
}

var (
	digitRun = regexp.MustCompile(`\d+`)
	// countRun is a number standing alone before a word: a count.
	countRun = regexp.MustCompile(`(?:^|[\s(])(\d+) ([A-Za-z]+)`)
	// wordRun is a word of prose or an identifier; digits are numbers'.
	wordRun = regexp.MustCompile(`[A-Za-z_][A-Za-z_']*`)
)

// A factSet is what a JSON answer and its call's arguments say: their
// words and numbers.
type factSet struct {
	words, numbers map[string]bool
	// values are the numbers that are values: the JSON's numbers, the
	// lengths of its lists and objects, the arguments' numbers.
	values map[string]bool
}

func (f factSet) add(v any, counts bool) {
	addText := func(s string) {
		for _, w := range wordRun.FindAllString(s, -1) {
			f.words[w] = true
		}
		for _, n := range digitRun.FindAllString(s, -1) {
			f.numbers[n] = true
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if counts {
			f.value(len(v))
			f.value(leaves(v))
			// The files of a list by file and of its counts beyond
			// the limit, together: "in 4 files".
			var maps []map[string]any
			for _, x := range v {
				if m, ok := x.(map[string]any); ok {
					maps = append(maps, m)
				}
			}
			for i, a := range maps {
				for _, b := range maps[i+1:] {
					n := len(a)
					for k := range b {
						if _, ok := a[k]; !ok {
							n++
						}
					}
					f.value(n)
				}
			}
		}
		for k, x := range v {
			addText(k)
			f.add(x, counts)
		}
	case []any:
		if counts {
			f.value(len(v))
		}
		for _, x := range v {
			f.add(x, counts)
		}
	case string:
		addText(v)
	case float64:
		addText(strconv.FormatFloat(v, 'f', -1, 64))
		f.values[strconv.FormatFloat(v, 'f', -1, 64)] = true
	case bool:
		addText(strconv.FormatBool(v))
	}
}

// value records a count as a number and a value.
func (f factSet) value(n int) {
	f.numbers[strconv.Itoa(n)] = true
	f.values[strconv.Itoa(n)] = true
}

// leaves is how many entries the lists of an object hold, all together,
// at any depth: the count a text gives of a list by file.
func leaves(v any) int {
	switch v := v.(type) {
	case map[string]any:
		n := 0
		for _, x := range v {
			n += leaves(x)
		}
		return n
	case []any:
		return len(v)
	}
	return 0
}

// framing compiles the phrases of a tool's text that restate the JSON's
// names and structure: taken out of the text before its words are
// looked for in the JSON. Their numbers are still checked.
func framing(phrases ...string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, p := range phrases {
		out = append(out, regexp.MustCompile("(?m)"+p))
	}
	return out
}

// commonFraming is the framing of every tool: the buffer an answer is
// about (its uri), an edit proposal's count line (applied, edits,
// files), a file's entries beyond the limit (more), and a count's plural.
var commonFraming = framing(
	`^buffer `,
	`^(not )?applied: \d+ edits? in \d+ files?`,
	`: \d+ more$`,
)

// framingUsed holds the framing that some answer had, so that
// TestFactsGoldens can fail on a phrase no answer has (a golden one, or
// the good sample's): an excuse for words that nothing checks.
var framingUsed sync.Map

// toolFraming is each tool's framing, from its catalogue entry
// (ToolSpec.Framing).
var toolFraming = sync.OnceValue(func() map[string][]*regexp.Regexp {
	out := map[string][]*regexp.Regexp{}
	for _, spec := range bridge.Catalogue() {
		out[spec.Name] = framing(spec.Framing...)
	}
	return out
})

// TestFactsGoldens holds every answer recorded in the golden archives to
// checkFacts: the text and JSON sections TestGolden compares with the
// live answers, read without starting gopls, so that a fact missing from
// the JSON fails in a second.
func TestFactsGoldens(t *testing.T) {
	archives, err := filepath.Glob("../testdata/golden/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no golden archives (%v)", err)
	}
	answers := 0
	for _, path := range archives {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sections := map[string]string{}
		for _, f := range ar.Files {
			sections[f.Name] = string(f.Data)
		}
		for _, f := range ar.Files {
			base, ok := strings.CutSuffix(f.Name, ".call")
			if !ok {
				continue
			}
			text, hasText := sections[base+".text"]
			structured, hasJSON := sections[base+".json"]
			if !hasText || !hasJSON {
				continue // a tool error has no JSON
			}
			var call struct {
				Tool string         `json:"tool"`
				Args map[string]any `json:"args"`
			}
			if err := json.Unmarshal(f.Data, &call); err != nil {
				t.Fatalf("%s %s: %v", path, f.Name, err)
			}
			name := filepath.Base(path) + " " + strings.TrimPrefix(base, "@")
			checkFacts(t, name, call.Tool, call.Args, strings.TrimSuffix(text, "\n"), json.RawMessage(structured))
			answers++
		}
	}
	if answers < 100 {
		t.Errorf("checked %d answers; the archives hold more", answers)
	}
	for _, spec := range bridge.Catalogue() {
		for _, re := range toolFraming()[spec.Name] {
			// The good sample's answer has its Want (TestOutputSchemas).
			if _, ok := framingUsed.Load(re); !ok && !re.MatchString(spec.Good.Want) {
				t.Errorf("%s: no golden answer has the framing %q; add an answer that has it to testdata/golden, or drop it from the ToolSpec", spec.Name, re.String())
			}
		}
	}
}

// TestFactsCatchGaps checks that checkFacts fails where it must: on
// go_search's answer as it was, whose JSON had the flags the text
// explains but not their explanation, and on a note the text lacks; and
// that the answer with its notes passes.
func TestFactsCatchGaps(t *testing.T) {
	const text = `1 symbol in the workspace (scope: "all" adds 88 from dependencies and the standard library; gopls stops at 100 matches, so a more specific query may find more)
shapes/shapes.go
17:22: field Triangle.A`
	args := map[string]any{"query": "e"}
	for _, tc := range []struct {
		name, text, json string
		fails            bool
	}{
		{"flags", text, `{"outside":88,"capped":true,"symbols":{"shapes/shapes.go":["17:22: field Triangle.A"]}}`, true},
		{"notes", text, `{"notes":["scope: \"all\" adds 88 from dependencies and the standard library","gopls stops at 100 matches, so a more specific query may find more"],"symbols":{"shapes/shapes.go":["17:22: field Triangle.A"]}}`, false},
		{"a note the text lacks", "1 symbol in the workspace\nshapes/shapes.go\n17:22: field Triangle.A", `{"notes":["list truncated; raise limit to see more"],"symbols":{"shapes/shapes.go":["17:22: field Triangle.A"]}}`, true},
		{"a nested note the text lacks", "1 symbol in the workspace\nshapes/shapes.go\n17:22: field Triangle.A", `{"symbols":{"shapes/shapes.go":["17:22: field Triangle.A"]},"more":{"notes":["list truncated"]}}`, true},
		{"a number the JSON lacks", "7 symbols in the workspace\nshapes/shapes.go\n17:22: field Triangle.A", `{"symbols":{"shapes/shapes.go":["17:22: field Triangle.A"]}}`, true},
		// 17 is in the JSON, but only as a line in a position: no count.
		{"a count that is only digits in a string", "17 symbols in the workspace\nshapes/shapes.go\n17:22: field Triangle.A", `{"symbols":{"shapes/shapes.go":["17:22: field Triangle.A"]}}`, true},
		{"a count the JSON has", "1 symbol in the workspace\nshapes/shapes.go\n17:22: field Triangle.A", `{"symbols":{"shapes/shapes.go":["17:22: field Triangle.A"]}}`, false},
	} {
		miss := missingFacts("go_search", args, tc.text, json.RawMessage(tc.json))
		if got := len(miss) > 0; got != tc.fails {
			t.Errorf("%s: missingFacts = %q; want it to fail: %v", tc.name, miss, tc.fails)
		}
	}
}
