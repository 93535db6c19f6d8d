package mcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVersionGatedFields checks docs/protocol.md: version-gated fields (title,
// outputSchema, structuredContent and resource links from 2025-06-18, icons
// from 2025-11-25; annotations, completions and progress messages from
// 2025-03-26) are only sent when negotiated.
func TestVersionGatedFields(t *testing.T) {
	since := map[string]string{
		"serverInfo.title":         "2025-06-18",
		"serverInfo.icons":         "2025-11-25",
		"capabilities.completions": "2025-03-26",
		"tool.title":               "2025-06-18",
		"tool.outputSchema":        "2025-06-18",
		"tool.annotations":         "2025-03-26",
		"tool.icons":               "2025-11-25",
		"call.structuredContent":   "2025-06-18",
		"call.resource_link":       "2025-06-18",
		"resource.title":           "2025-06-18",
		"resource.icons":           "2025-11-25",
		"prompt.title":             "2025-06-18",
		"prompt.argument.title":    "2025-06-18",
		"prompt.icons":             "2025-11-25",
		"progress.message":         "2025-03-26",
	}
	for _, version := range supportedVersions {
		t.Run(version, func(t *testing.T) {
			s := testServer(t, &Options{Title: "Test server", Icons: testIcons})
			ps := startSession(t, s)
			init := ps.initialize(version)["result"].(map[string]any)
			byID := map[string]map[string]any{}
			var progress []map[string]any
			for _, l := range []string{
				`{"jsonrpc":"2.0","id":"tools","method":"tools/list"}`,
				`{"jsonrpc":"2.0","id":"linked","method":"tools/call","params":{"name":"linked"}}`,
				`{"jsonrpc":"2.0","id":"fail","method":"tools/call","params":{"name":"fail"}}`,
				`{"jsonrpc":"2.0","id":"resources","method":"resources/list"}`,
				`{"jsonrpc":"2.0","id":"prompts","method":"prompts/list"}`,
				`{"jsonrpc":"2.0","id":"progress","method":"tools/call","params":{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":"p"}}}`,
			} {
				ps.send(l)
				for {
					m := ps.recv()
					if m["method"] == "notifications/progress" {
						progress = append(progress, m["params"].(map[string]any))
						continue
					}
					byID[m["id"].(string)] = m["result"].(map[string]any)
					break
				}
			}
			tool := byID["tools"]["tools"].([]any)[0].(map[string]any)
			resource := byID["resources"]["resources"].([]any)[0].(map[string]any)
			prompt := byID["prompts"]["prompts"].([]any)[0].(map[string]any)
			var kinds []string
			for _, c := range byID["linked"]["content"].([]any) {
				kinds = append(kinds, c.(map[string]any)["type"].(string))
			}
			if len(progress) != 1 {
				t.Fatalf("got %d progress notifications, want 1", len(progress))
			}
			got := map[string]bool{
				"serverInfo.title":         has(init["serverInfo"], "title"),
				"serverInfo.icons":         has(init["serverInfo"], "icons"),
				"capabilities.completions": has(init["capabilities"], "completions"),
				"tool.title":               has(tool, "title"),
				"tool.outputSchema":        has(tool, "outputSchema"),
				"tool.annotations":         has(tool, "annotations"),
				"tool.icons":               has(tool, "icons"),
				"call.structuredContent":   has(byID["linked"], "structuredContent"),
				"call.resource_link":       len(kinds) == 2 && kinds[1] == "resource_link",
				"resource.title":           has(resource, "title"),
				"resource.icons":           has(resource, "icons"),
				"prompt.title":             has(prompt, "title"),
				"prompt.argument.title":    has(prompt["arguments"].([]any)[0], "title"),
				"prompt.icons":             has(prompt, "icons"),
				"progress.message":         has(progress[0], "message"),
			}
			want := map[string]bool{}
			for field, v := range since {
				want[field] = version >= v
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fields sent at %s (-want +got):\n%s", version, diff)
			}
			// A failed call has no structuredContent at any version: a
			// client checking it against the output schema would hide
			// the message.
			if has(byID["fail"], "structuredContent") {
				t.Errorf("a failed call at %s has structuredContent: %v", version, byID["fail"])
			}
			// Whatever is sent has the shape of its version's schema.
			if version >= "2025-06-18" {
				link := byID["linked"]["content"].([]any)[1]
				wantLink := map[string]any{"type": "resource_link", "uri": "test://hello", "name": "hello", "mimeType": "text/plain"}
				if diff := cmp.Diff(wantLink, link); diff != "" {
					t.Errorf("resource link (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// has reports whether m is an object with the member key.
func has(m any, key string) bool {
	obj, ok := m.(map[string]any)
	if !ok {
		return false
	}
	_, ok = obj[key]
	return ok
}
