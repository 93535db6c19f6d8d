package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestOutputSchemas checks docs/protocol.md's schema rules on every registered
// tool, with a validator independent of the one that generated the
// schemas: input and output schemas are valid JSON Schema 2020-12, every
// object schema has properties, every schema node has one type (inputs
// without $ref), inputs forbid unknown properties, every
// tool has a title, a description and annotations, and a live
// structuredContent validates against the tool's outputSchema. The live
// calls are the catalogue's: each tool's good sample must answer its
// fragment, and its bad sample a one-line tool error its pattern matches.
func TestOutputSchemas(t *testing.T) {
	// Every tool, gopls mcp's optional ones included, and a
	// vulnerability database for go_vulncheck.
	root := exampleRoot(t)
	st := startStackOf(t, root, stackConfig{
		bridge: bridge.Config{Tools: bridge.OptionalTools},
		lsp:    lspclient.Options{Settings: map[string]any{"env": map[string]any{"GOVULNDB": vulndbURL(t)}}},
	})
	ctx := testCtx(t)
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			Title        string          `json:"title"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			Annotations  map[string]any  `json:"annotations"`
		} `json:"tools"`
	}
	if err := st.client.Call(ctx, "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	specs := map[string]bridge.ToolSpec{}
	for _, spec := range bridge.Catalogue() {
		specs[spec.Name] = spec
	}
	listed := map[string]bool{}
	for _, tool := range list.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Title == "" || tool.Description == "" || len(tool.OutputSchema) == 0 {
				t.Errorf("title %q, description %q, outputSchema %s: all are required", tool.Title, tool.Description, tool.OutputSchema)
			}
			for _, hint := range []string{"readOnlyHint", "idempotentHint", "openWorldHint"} {
				if _, ok := tool.Annotations[hint].(bool); !ok {
					t.Errorf("annotations %v lack %s", tool.Annotations, hint)
				}
			}
			if tool.Annotations["openWorldHint"] != false {
				t.Errorf("openWorldHint is %v, want false", tool.Annotations["openWorldHint"])
			}
			in := compileSchema(t, tool.Name+"/input", tool.InputSchema)
			out := compileSchema(t, tool.Name+"/output", tool.OutputSchema)
			checkObjects(t, "inputSchema", decode(t, tool.InputSchema), true)
			checkObjects(t, "outputSchema", decode(t, tool.OutputSchema), false)
			checkPortable(t, "inputSchema", decode(t, tool.InputSchema), true)
			checkPortable(t, "outputSchema", decode(t, tool.OutputSchema), false)

			spec, ok := specs[tool.Name]
			if !ok {
				t.Fatalf("%s is listed but not in the catalogue (bridge/catalogue.go)", tool.Name)
			}
			listed[tool.Name] = true
			good := spec.Good
			args := decode(t, json.RawMessage(strings.ReplaceAll(good.Args, "$ROOT", root)))
			if err := in.Validate(args); err != nil {
				t.Errorf("the good sample's arguments %s do not validate against the inputSchema: %v", good.Args, err)
			}
			res, err := st.client.CallTool(ctx, tool.Name, args)
			if err != nil {
				t.Fatalf("%s %s: %v", tool.Name, good.Args, err)
			}
			if res.IsError {
				t.Fatalf("%s %s: tool error %q; the good sample must succeed", tool.Name, good.Args, res.Text())
			}
			if !strings.Contains(res.Text(), strings.ReplaceAll(good.Want, "$ROOT", root)) {
				t.Errorf("%s %s answered\n%s\nwant it to contain %q", tool.Name, good.Args, res.Text(), good.Want)
			}
			if err := out.Validate(decode(t, res.StructuredContent)); err != nil {
				t.Errorf("%s %s: structuredContent does not validate against the outputSchema:\n%v\nstructuredContent: %s",
					tool.Name, good.Args, err, res.StructuredContent)
			}
			goodArgs, _ := args.(map[string]any)
			checkFacts(t, "the good sample", tool.Name, goodArgs, res.Text(), res.StructuredContent)

			bad := spec.Bad
			pattern, err := regexp.Compile(bad.Want)
			if err != nil {
				t.Fatalf("the bad sample's pattern %q: %v", bad.Want, err)
			}
			res, err = st.client.CallTool(ctx, tool.Name, decode(t, json.RawMessage(strings.ReplaceAll(bad.Args, "$ROOT", root))))
			if err != nil {
				t.Fatalf("%s %s: %v", tool.Name, bad.Args, err)
			}
			if !res.IsError || !pattern.MatchString(res.Text()) || strings.Contains(res.Text(), "\n") {
				t.Errorf("%s %s: isError=%v %q; want a one-line tool error matching %s", tool.Name, bad.Args, res.IsError, res.Text(), bad.Want)
			}
		})
	}
	for name := range specs {
		if !listed[name] {
			t.Errorf("the catalogue has %s, which is not registered", name)
		}
	}
}

// compileSchema compiles a schema as JSON Schema 2020-12; the compiler
// first validates it against the 2020-12 metaschema.
func compileSchema(t *testing.T, name string, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem:///" + strings.ReplaceAll(name, "/", "-") + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s is not a valid 2020-12 schema: %v", name, err)
	}
	return s
}

// decode unmarshals JSON the way the validator expects (numbers as
// json.Number).
func decode(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// checkObjects walks a schema: every object schema has properties, and an
// input schema, as listed, leaves additionalProperties out.
func checkObjects(t *testing.T, where string, schema any, input bool) {
	t.Helper()
	var walk func(path string, s any)
	walk = func(path string, s any) {
		switch s := s.(type) {
		case map[string]any:
			if isObjectType(s["type"]) {
				if _, ok := s["properties"].(map[string]any); !ok {
					t.Errorf("%s%s: an object schema without properties", where, path)
				}
				if input && s["additionalProperties"] != nil {
					// Unknown arguments are refused all the same (see
					// mcp's TestToolsListAndCall); listed, the constraint
					// costs eager clients bytes in every request.
					t.Errorf("%s%s: an input object schema lists additionalProperties", where, path)
				}
			}
			for k, v := range s {
				walk(path+"/"+k, v)
			}
		case []any:
			for i, v := range s {
				walk(fmt.Sprintf("%s/%d", path, i), v)
			}
		}
	}
	walk("", schema)
}

// checkPortable walks the schema positions of a schema (properties,
// $defs, items, additionalProperties): every node has a single "type", as
// a string, or (outside an input schema) is a "$ref" and nothing else. A
// list of types, a node with no type (it accepts anything) and schema
// combinators are what single-type dialects such as Gemini's function
// declarations reject, and what the MCP Inspector's --strict reports.
func checkPortable(t *testing.T, where string, schema any, input bool) {
	t.Helper()
	var walk func(path string, s any)
	walk = func(path string, node any) {
		s, ok := node.(map[string]any)
		if !ok {
			if b, isBool := node.(bool); path != "" && isBool && !b && strings.HasSuffix(path, "/additionalProperties") {
				return
			}
			t.Errorf("%s%s: %v is not a schema object", where, path, node)
			return
		}
		ref, hasRef := s["$ref"]
		typ, hasType := s["type"]
		switch {
		case hasRef && input:
			t.Errorf("%s%s: $ref %v in an input schema; inputs are self-contained", where, path, ref)
		case hasRef && hasType:
			t.Errorf("%s%s: a $ref with a type beside it", where, path)
		case hasRef:
		case !hasType:
			t.Errorf("%s%s: no type, so it accepts anything", where, path)
		default:
			if _, ok := typ.(string); !ok {
				t.Errorf("%s%s: type %v is not one type", where, path, typ)
			}
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "not", "if"} {
			if _, ok := s[k]; ok {
				t.Errorf("%s%s: %s; give it one plain type", where, path, k)
			}
		}
		for _, k := range []string{"properties", "$defs"} {
			if m, ok := s[k].(map[string]any); ok {
				for name, sub := range m {
					walk(path+"/"+k+"/"+name, sub)
				}
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if sub, ok := s[k]; ok {
				walk(path+"/"+k, sub)
			}
		}
	}
	walk("", schema)
}

func isObjectType(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		for _, x := range t {
			if x == "object" {
				return true
			}
		}
	}
	return false
}

// toolsListBudget is issue 6's bound on tools/list: every client puts the
// whole list into the model's context before the first question.
const toolsListBudget = 32 << 10

// TestToolsListSize measures the live tools/list result at 2025-11-25 (the
// largest: titles, output schemas and annotations included), with writes
// allowed and not (the edit tools' descriptions differ): every default
// tool must be listed, on one page, in 32 KiB, and gopls mcp's optional
// tools not among them.
func TestToolsListSize(t *testing.T) {
	for _, allowWrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("allowWrite=%v", allowWrite), func(t *testing.T) {
			c, _ := startConfigured(t, exampleRoot(t), bridge.Config{AllowWrite: allowWrite})
			raw, err := c.CallRaw(testCtx(t), "tools/list", nil)
			if err != nil {
				t.Fatal(err)
			}
			var list struct {
				Tools []struct {
					Name         string          `json:"name"`
					Description  string          `json:"description"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			}
			if err := json.Unmarshal(raw, &list); err != nil {
				t.Fatal(err)
			}
			if n := len(bridge.DefaultTools()); len(list.Tools) != n || list.NextCursor != "" {
				t.Fatalf("tools/list has %d tools and cursor %q; want all %d default ones on one page", len(list.Tools), list.NextCursor, n)
			}
			in, out, desc := 0, 0, 0
			for _, tool := range list.Tools {
				if slices.Contains(bridge.OptionalTools, tool.Name) {
					t.Errorf("%s is listed by default; gopls mcp's optional tools are offered only when --tools names them", tool.Name)
				}
				if len(tool.OutputSchema) == 0 {
					t.Errorf("%s has no outputSchema: the measure would be short", tool.Name)
				}
				in += len(tool.InputSchema)
				out += len(tool.OutputSchema)
				desc += len(tool.Description)
			}
			t.Logf("tools/list: %d bytes, %d left of the %d budget (input schemas %d, output schemas %d, descriptions %d)",
				len(raw), toolsListBudget-len(raw), toolsListBudget, in, out, desc)
			if len(raw) > toolsListBudget {
				t.Errorf("tools/list is %d bytes, over the %d budget (input schemas %d, output schemas %d, descriptions %d)",
					len(raw), toolsListBudget, in, out, desc)
			}
			if !allowWrite {
				checkDocumentedSize(t, len(raw))
			}
		})
	}
}

// checkDocumentedSize checks the size docs/tools.md gives tools/list
// ("about N KiB") against the measured one, to the nearest KiB.
func checkDocumentedSize(t *testing.T, size int) {
	t.Helper()
	doc, err := os.ReadFile("../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`tools/list` is about ([0-9]+) KiB").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/tools.md no longer says how large tools/list is")
	}
	if said, _ := strconv.Atoi(string(m[1])); math.Abs(float64(size)/1024-float64(said)) > 0.5 {
		t.Errorf("docs/tools.md says tools/list is about %d KiB; it is %.1f KiB", said, float64(size)/1024)
	}
}

// eagerBudget is issue 23's bound on what eager clients (Gemini CLI,
// Cursor, VS Code) send with every request: each default tool's name,
// description and input schema, as compact JSON.
const eagerBudget = 16 << 10

// TestEagerToolsSize measures the tool definitions an eager client puts in
// every request (name, description, inputSchema of every default tool,
// compact JSON, as one array), with writes allowed and not, and fails
// above 16 KiB.
func TestEagerToolsSize(t *testing.T) {
	for _, allowWrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("allowWrite=%v", allowWrite), func(t *testing.T) {
			c, _ := startConfigured(t, exampleRoot(t), bridge.Config{AllowWrite: allowWrite})
			var list struct {
				Tools []struct {
					Name        string          `json:"name"`
					Description string          `json:"description"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			}
			if err := c.Call(testCtx(t), "tools/list", nil, &list); err != nil {
				t.Fatal(err)
			}
			if n := len(bridge.DefaultTools()); len(list.Tools) != n {
				t.Fatalf("tools/list has %d tools, want the %d default ones", len(list.Tools), n)
			}
			var buf bytes.Buffer
			for i := range list.Tools {
				buf.Reset()
				if err := json.Compact(&buf, list.Tools[i].InputSchema); err != nil {
					t.Fatal(err)
				}
				list.Tools[i].InputSchema = slices.Clone(buf.Bytes())
			}
			data, err := json.Marshal(list.Tools)
			if err != nil {
				t.Fatal(err)
			}
			var per []string
			for _, tool := range list.Tools {
				per = append(per, fmt.Sprintf("%s %d+%d", tool.Name, len(tool.Description), len(tool.InputSchema)))
			}
			t.Logf("eager tool definitions: %d bytes, %d left of the %d budget (description+inputSchema: %s)",
				len(data), eagerBudget-len(data), eagerBudget, strings.Join(per, ", "))
			if len(data) > eagerBudget {
				t.Errorf("the default tools' name, description and inputSchema are %d bytes as compact JSON, %d over the %d budget: shorten descriptions or input schemas", len(data), len(data)-eagerBudget, eagerBudget)
			}
		})
	}
}
