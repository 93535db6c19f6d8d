package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// repoFile reads a file of the repository, by slash path from its root.
// update makes TestClientPackages write GOPLSMCP.md (go generate).
var update = flag.Bool("update", false, "write the committed GOPLSMCP.md as goplsmcp rules does")

func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestServerJSON validates server.json, the MCP registry entry, against the
// registry's published schema (vendored in testdata/mcp-registry, with its
// source), and checks that the schema bites: an entry without its name is
// refused.
func TestServerJSON(t *testing.T) {
	const schemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(repoFile(t, "testdata/mcp-registry/server.schema.json")))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, schemaDoc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	raw := repoFile(t, "server.json")
	entry, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(entry); err != nil {
		t.Errorf("server.json does not validate against the registry's schema:\n%v", err)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	if fields["$schema"] != schemaURL {
		t.Errorf("server.json's $schema is %v, want the vendored schema's URL %s", fields["$schema"], schemaURL)
	}
	delete(fields, "name")
	if err := schema.Validate(fields); err == nil {
		t.Errorf("server.json without its name validates: the schema checks nothing")
	}
}

// TestClientPackages checks the client packages against each other and
// the server: the Claude Code marketplace names the plugin directory, the
// plugin and the Gemini CLI extension start goplsmcp, the skill names every
// default tool, and the committed GOPLSMCP.md (the extension's context
// file) is what goplsmcp rules writes. The real clients load them in
// .interop (make interop).
func TestClientPackages(t *testing.T) {
	var market struct {
		Name    string `json:"name"`
		Plugins []struct {
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(repoFile(t, ".claude-plugin/marketplace.json"), &market); err != nil {
		t.Fatal(err)
	}
	if len(market.Plugins) != 1 || market.Plugins[0].Name != "goplsmcp" {
		t.Fatalf("marketplace plugins %+v, want goplsmcp", market.Plugins)
	}
	dir := strings.TrimPrefix(market.Plugins[0].Source, "./")
	var plugin struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(repoFile(t, dir+"/.claude-plugin/plugin.json"), &plugin); err != nil {
		t.Fatal(err)
	}
	if plugin.Name != "goplsmcp" {
		t.Errorf("plugin name %q, want goplsmcp", plugin.Name)
	}
	type server struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	var mcpJSON struct {
		MCPServers map[string]server `json:"mcpServers"`
	}
	if err := json.Unmarshal(repoFile(t, dir+"/.mcp.json"), &mcpJSON); err != nil {
		t.Fatal(err)
	}
	var ext struct {
		Name        string            `json:"name"`
		MCPServers  map[string]server `json:"mcpServers"`
		ContextFile string            `json:"contextFileName"`
	}
	if err := json.Unmarshal(repoFile(t, "gemini-extension.json"), &ext); err != nil {
		t.Fatal(err)
	}
	for what, servers := range map[string]map[string]server{"the plugin's .mcp.json": mcpJSON.MCPServers, "gemini-extension.json": ext.MCPServers} {
		if s, ok := servers["goplsmcp"]; !ok || s.Command != "goplsmcp" || len(servers) != 1 {
			t.Errorf("%s servers %+v, want goplsmcp alone, started as goplsmcp", what, servers)
		}
	}

	skill := string(repoFile(t, dir+"/skills/go-code/SKILL.md"))
	if !strings.HasPrefix(skill, "---\nname: go-code\ndescription: ") {
		t.Errorf("SKILL.md does not start with its name and description:\n%.200s", skill)
	}
	// The instructions name every default tool (bridge's TestInstructions).
	var tools []string
	for _, w := range strings.FieldsFunc(bridge.Instructions, func(r rune) bool { return r == ' ' || r == ',' || r == ':' || r == '\n' }) {
		if strings.HasPrefix(w, "go_") && !slices.Contains(tools, w) {
			tools = append(tools, w)
		}
	}
	if want := len(bridge.DefaultTools()); len(tools) != want {
		t.Fatalf("the instructions name %d tools, the catalogue has %d default ones: %v", len(tools), want, tools)
	}
	for _, tool := range tools {
		if !strings.Contains(skill, "`"+tool+"`") {
			t.Errorf("SKILL.md does not say when to use %s", tool)
		}
	}

	if ext.ContextFile != rulesFile {
		t.Errorf("the extension's context file is %q, want %s", ext.ContextFile, rulesFile)
	}
	want, err := withBlock(nil, false, "", rulesBody())
	if err != nil {
		t.Fatal(err)
	}
	// The extension a checkout installs is its directory alone, with its
	// own copy of the context file (Gemini copies the whole directory it
	// is given, bin/ included at the root); the root's manifest, which an
	// install from the repository's URL reads, is the same file.
	for _, f := range []string{rulesFile, geminiExtension + "/" + rulesFile} {
		if got := repoFile(t, f); !bytes.Equal(got, want) {
			if *update {
				if err := os.WriteFile(filepath.Join("..", "..", filepath.FromSlash(f)), want, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", f)
				continue
			}
			t.Errorf("the committed %s is not what goplsmcp rules writes; run go generate ./cmd/goplsmcp and commit it", f)
		}
	}
	if !bytes.Equal(repoFile(t, geminiExtension+"/gemini-extension.json"), repoFile(t, "gemini-extension.json")) {
		t.Errorf("%s/gemini-extension.json and the root's gemini-extension.json differ; they must be the same file", geminiExtension)
	}
	entries, err := os.ReadDir(filepath.Join("..", "..", filepath.FromSlash(geminiExtension)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{rulesFile, "gemini-extension.json"}, names); diff != "" {
		t.Errorf("%s holds more than the extension needs (-want +got):\n%s", geminiExtension, diff)
	}
}

// geminiExtension is the directory a checkout installs the Gemini CLI
// extension from (docs/agents.md).
const geminiExtension = "clients/gemini/goplsmcp"
