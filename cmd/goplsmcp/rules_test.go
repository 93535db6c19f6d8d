package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runRulesCmd runs goplsmcp rules with args, as the command line does, and
// returns what it printed.
func runRulesCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"rules"}, args...), strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), err
}

// readTree returns every regular file under dir, by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRulesPrint checks that goplsmcp rules prints, and writes nothing:
// GOPLSMCP.md with the rules, then the stub of each client named, or of
// all five.
func TestRulesPrint(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	out, err := runRulesCmd(t)
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "==> ") {
			heads = append(heads, l)
		}
	}
	want := []string{"==> GOPLSMCP.md <==", "==> CLAUDE.md <==", "==> AGENTS.md <==", "==> GEMINI.md <==",
		"==> .cursor/rules/goplsmcp.mdc <==", "==> .github/copilot-instructions.md <=="}
	if diff := cmp.Diff(want, heads); diff != "" {
		t.Errorf("files printed (-want +got):\n%s", diff)
	}
	for _, s := range []string{"go_diagnostics", "go_symbol_references", "symbol", "Never build, run or test", "@GOPLSMCP.md", "Read GOPLSMCP.md", "alwaysApply: true"} {
		if !strings.Contains(out, s) {
			t.Errorf("the printed files lack %q", s)
		}
	}
	if files := readTree(t, dir); len(files) != 0 {
		t.Errorf("printing wrote files: %v", files)
	}

	out, err = runRulesCmd(t, "codex")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "==> ") != 2 || !strings.Contains(out, "==> AGENTS.md <==") {
		t.Errorf("rules codex printed:\n%s\nwant GOPLSMCP.md and AGENTS.md", out)
	}

	var ee *exitError
	if _, err := runRulesCmd(t, "emacs"); !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(ee.msg, `unknown client "emacs"`) {
		t.Errorf("rules emacs: %v, want a usage error naming the client", err)
	}
}

// TestRulesWrite checks goplsmcp rules --write: a person's text around the
// block survives, the block is replaced in place, a run that changes
// nothing writes nothing, and a file with a broken mark is refused.
func TestRulesWrite(t *testing.T) {
	root := t.TempDir()
	userClaude := "# Our project\n\nUse tabs.\n"
	if err := os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte(userClaude), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runRulesCmd(t, "--write", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	want := "GOPLSMCP.md: written\nCLAUDE.md: written\nAGENTS.md: written\nGEMINI.md: written\n.cursor/rules/goplsmcp.mdc: written\n.github/copilot-instructions.md: written\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	files := readTree(t, root)
	claude := files["CLAUDE.md"]
	if !strings.HasPrefix(claude, userClaude+"\n"+blockBegin+"\n") || !strings.HasSuffix(claude, blockEnd+"\n") || !strings.Contains(claude, "@GOPLSMCP.md") {
		t.Errorf("CLAUDE.md does not keep the person's text with the block appended:\n%s", claude)
	}
	if info, err := os.Stat(filepath.Join(root, "CLAUDE.md")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("CLAUDE.md's mode: %v %v, want 0600 kept", info.Mode(), err)
	}
	if mdc := files[".cursor/rules/goplsmcp.mdc"]; !strings.HasPrefix(mdc, "---\ndescription: ") {
		t.Errorf("the Cursor rule does not start with its metadata:\n%s", mdc)
	}
	if !strings.Contains(files["GOPLSMCP.md"], "go_diagnostics") {
		t.Errorf("GOPLSMCP.md lacks the rules:\n%s", files["GOPLSMCP.md"])
	}

	// Nothing changed: nothing is written (the modification times stay,
	// set in the past to tell).
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for rel := range files {
		if err := os.Chtimes(filepath.Join(root, rel), past, past); err != nil {
			t.Fatal(err)
		}
	}
	out, err = runRulesCmd(t, "--write", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "written") {
		t.Errorf("second run wrote:\n%s", out)
	}
	for rel := range files {
		if info, err := os.Stat(filepath.Join(root, rel)); err != nil || !info.ModTime().Equal(past) {
			t.Errorf("%s was written again by a run that changed nothing", rel)
		}
	}
	if diff := cmp.Diff(files, readTree(t, root)); diff != "" {
		t.Errorf("the second run changed files (-want +got):\n%s", diff)
	}

	// A person edits inside the block and adds text after it: the block
	// comes back in place, the text after it stays.
	agents := strings.Replace(files["AGENTS.md"], "Read GOPLSMCP.md", "Ignore GOPLSMCP.md", 1) + "\n## Later notes\n"
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte(agents), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err = runRulesCmd(t, "codex", "--write", "--root", root); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("GOPLSMCP.md: unchanged\nAGENTS.md: written\n", out); diff != "" {
		t.Errorf("rules codex --write (-want +got):\n%s", diff)
	}
	got, _ := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if want := files["AGENTS.md"] + "\n## Later notes\n"; string(got) != want {
		t.Errorf("AGENTS.md after the block was edited:\n%s\nwant:\n%s", got, want)
	}

	// A begin mark without its end: refused, the file left alone.
	broken := "notes\n" + blockBegin + "\nhalf a block\n"
	if err := os.WriteFile(filepath.Join(root, "GEMINI.md"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runRulesCmd(t, "gemini", "--write", "--root", root); err == nil || !strings.Contains(err.Error(), "GEMINI.md: it has the goplsmcp begin mark without the end mark") {
		t.Errorf("a broken block: %v, want the file refused", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "GEMINI.md")); string(got) != broken {
		t.Errorf("GEMINI.md with a broken block was changed:\n%s", got)
	}
}

// TestRulesConfined checks that --write stays under the root: a client
// file, or a directory on its way, that links out is refused and the file
// outside untouched; a link inside the root is written through, and one
// file under two names gets one block.
func TestRulesConfined(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "GEMINI.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".cursor")); err != nil {
		t.Fatal(err)
	}
	if _, err := runRulesCmd(t, "gemini", "--write", "--root", root); err == nil || !strings.Contains(err.Error(), "GEMINI.md") {
		t.Errorf("GEMINI.md linking out of the root: %v, want it refused", err)
	}
	if _, err := runRulesCmd(t, "cursor", "--write", "--root", root); err == nil || !strings.Contains(err.Error(), ".cursor/rules/goplsmcp.mdc") {
		t.Errorf(".cursor linking out of the root: %v, want it refused", err)
	}
	if got, _ := os.ReadFile(secret); string(got) != "outside\n" {
		t.Errorf("a file outside the root was changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "rules")); err == nil {
		t.Errorf("a directory was made outside the root")
	}

	// CLAUDE.md a link to AGENTS.md, as many repositories have it.
	if err := os.Symlink("AGENTS.md", filepath.Join(root, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("# Agents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runRulesCmd(t, "claude", "codex", "--write", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("GOPLSMCP.md: unchanged\nCLAUDE.md: written\nAGENTS.md: the same file as CLAUDE.md, left as that\n", out); diff != "" {
		t.Errorf("a linked CLAUDE.md (-want +got):\n%s", diff)
	}
	if info, err := os.Lstat(filepath.Join(root, "CLAUDE.md")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a link: %v %v", info, err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if !strings.HasPrefix(string(got), "# Agents\n\n"+blockBegin) || strings.Count(string(got), blockBegin) != 1 {
		t.Errorf("AGENTS.md through the link:\n%s", got)
	}
}
