package bridge_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCRLFAndUTF16Columns asks about a file saved with Windows line endings
// and characters outside the BMP before the identifier: positions in and
// out are byte columns, as go vet prints them, on the CRLF line as on any
// other, though gopls counts UTF-16 units.
func TestCRLFAndUTF16Columns(t *testing.T) {
	root := realTempDir(t)
	writeWorkspaceFile(t, root, "go.mod", []byte("module example.com/crlf\n\ngo 1.22\n"))
	// Line 4: `var s = "🙂é"; var Target = 1` — Target starts at byte 22
	// (column 23), rune 18, UTF-16 unit 19 (🙂 takes two units, four bytes).
	writeWorkspaceFile(t, root, "a.go", []byte("package a\r\n\r\n// Ünïcødé\r\nvar s = \"🙂é\"; var Target = 1\r\n\r\nfunc F() int { return Target + len(s) }\r\n"))
	c := startStack(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	res, err := c.CallTool(ctx, "go_definition", map[string]any{"file": "a.go", "line": 6, "column": 23})
	if err != nil || res.IsError {
		t.Fatalf("go_definition: %v %s", err, res.Text())
	}
	if want := "a.go:4:23: var s = \"🙂é\"; var Target = 1\n"; !strings.Contains(res.Text()+"\n", want) || strings.Contains(res.Text(), "\r") {
		t.Errorf("go_definition of Target = %q, want it to hold %q and no carriage return", res.Text(), want)
	}
	// Asked at the byte column of Target on the CRLF line itself, with
	// no name to correct a wrong column.
	res, err = c.CallTool(ctx, "go_symbol_references", map[string]any{"file": "a.go", "line": 4, "column": 23})
	if err != nil || res.IsError {
		t.Fatalf("go_symbol_references: %v %s", err, res.Text())
	}
	if !strings.Contains(res.Text(), "\n6:23: func F() int { return Target") || strings.Contains(res.Text(), "\r") {
		t.Errorf("go_symbol_references at 4:23 = %q, want the use of Target at 6:23 (line 6 of a.go) and no carriage return", res.Text())
	}
}
