package bridge_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/tools/txtar"
)

// TestGoldenOutputSchemas validates every structured answer recorded in
// testdata/golden — each one a live answer, since TestGolden compares them
// with what the tools return — against its tool's outputSchema as
// tools/list announces it. Error results carry {"error": ...} instead and
// are not checked.
func TestGoldenOutputSchemas(t *testing.T) {
	c := startStack(t, realTempDir(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var list struct {
		Tools []struct {
			Name         string             `json:"name"`
			OutputSchema *jsonschema.Schema `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := c.Call(ctx, "tools/list", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		if tool.OutputSchema == nil {
			t.Errorf("%s has no outputSchema", tool.Name)
			continue
		}
		r, err := tool.OutputSchema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolving outputSchema: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}

	archives, err := filepath.Glob("../testdata/golden/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]int{}
	for _, path := range archives {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tools := map[string]string{} // step name -> tool
		for _, f := range ar.Files {
			if name, ok := strings.CutSuffix(f.Name, ".call"); ok {
				var s step
				if err := json.Unmarshal(f.Data, &s); err != nil {
					t.Fatalf("%s: %s: %v", path, f.Name, err)
				}
				tools[name] = s.Tool
			}
		}
		for _, f := range ar.Files {
			name, ok := strings.CutSuffix(f.Name, ".json")
			if !ok {
				continue
			}
			var v map[string]any
			if err := json.Unmarshal(f.Data, &v); err != nil {
				t.Fatalf("%s: %s: %v", path, f.Name, err)
			}
			if _, failed := v["error"]; failed && len(v) == 1 {
				continue
			}
			tool := tools[name]
			schema := schemas[tool]
			if schema == nil {
				t.Errorf("%s: %s: tool %q is not listed", path, f.Name, tool)
				continue
			}
			if err := schema.Validate(v); err != nil {
				t.Errorf("%s: %s: the answer of %s does not match its outputSchema: %v", filepath.Base(path), f.Name, tool, err)
			}
			checked[tool]++
		}
	}
	for name := range schemas {
		if checked[name] == 0 {
			t.Logf("%s: no successful answer in the goldens to check", name)
		}
	}
}
