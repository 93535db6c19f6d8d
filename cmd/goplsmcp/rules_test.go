package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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
// outside untouched; a client file linked to another client file of the
// run is left a link, and the other file gets the block.
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
	if diff := cmp.Diff("GOPLSMCP.md: unchanged\nCLAUDE.md: a link to AGENTS.md, which gets the block\nAGENTS.md: written\n", out); diff != "" {
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

// lstatTree describes every entry under dir, by slash path, without
// following links: a file's mode and bytes, a link's target, a directory.
func lstatTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			tree[rel] = "-> " + filepath.ToSlash(target)
			return err
		case d.IsDir():
			tree[rel] = "dir"
		default:
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			tree[rel] = fmt.Sprintf("%v %q", info.Mode(), data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestRulesHostile runs goplsmcp rules --write (the binary) on cloned
// repositories that aim its writes elsewhere with committed links: each
// is refused with one sentence naming the file or directory, and nothing
// but the files goplsmcp owns changes, inside the root or out of it.
func TestRulesHostile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	mainGo := "package main\n\nfunc main() {}\n"
	goMod := "module example.com/m\n\ngo 1.22\n"
	tests := []struct {
		name string
		// links are made in the repository, by name to target (relative
		// to the link); dirs first.
		dirs     []string
		links    [][2]string
		clients  []string
		wantCode int
		wantErr  string   // in stderr, after "goplsmcp: rules: "
		written  []string // the only entries that may change, from base
	}{
		{name: "committed temporary name linked to main.go",
			links:   [][2]string{{"GOPLSMCP.md.goplsmcp-tmp", "main.go"}, {"CLAUDE.md.goplsmcp-tmp", "go.mod"}},
			written: []string{"repo/GOPLSMCP.md", "repo/CLAUDE.md", "repo/AGENTS.md", "repo/GEMINI.md", "repo/.cursor", "repo/.cursor/rules", "repo/.cursor/rules/goplsmcp.mdc", "repo/.github", "repo/.github/copilot-instructions.md"}},
		{name: "CLAUDE.md linked to go.mod", links: [][2]string{{"CLAUDE.md", "go.mod"}}, clients: []string{"claude"},
			wantCode: 1, wantErr: "CLAUDE.md: it is a symbolic link, and goplsmcp rules writes only plain files",
			written: []string{"repo/GOPLSMCP.md"}},
		{name: "GOPLSMCP.md linked to main.go", links: [][2]string{{"GOPLSMCP.md", "main.go"}}, clients: []string{"codex"},
			wantCode: 1, wantErr: "GOPLSMCP.md: it is a symbolic link"},
		{name: "AGENTS.md linked out of the root", links: [][2]string{{"AGENTS.md", "../outside/notes.md"}}, clients: []string{"codex"},
			wantCode: 1, wantErr: "AGENTS.md: it is a symbolic link",
			written: []string{"repo/GOPLSMCP.md"}},
		{name: ".cursor linked to a directory in the root", dirs: []string{"internal/rules"}, links: [][2]string{{".cursor", "internal"}}, clients: []string{"cursor"},
			wantCode: 1, wantErr: ".cursor/rules/goplsmcp.mdc: .cursor is a symbolic link, and goplsmcp rules writes only into real directories",
			written: []string{"repo/GOPLSMCP.md"}},
		{name: ".cursor/rules linked to the root", dirs: []string{".cursor"}, links: [][2]string{{".cursor/rules", ".."}}, clients: []string{"cursor"},
			wantCode: 1, wantErr: ".cursor/rules/goplsmcp.mdc: .cursor/rules is a symbolic link",
			written: []string{"repo/GOPLSMCP.md"}},
		{name: ".github linked out of the root", links: [][2]string{{".github", "../outside"}}, clients: []string{"vscode"},
			wantCode: 1, wantErr: ".github/copilot-instructions.md: .github is a symbolic link",
			written: []string{"repo/GOPLSMCP.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "repo")
			for _, d := range append([]string{"repo", "outside"}, tt.dirs...) {
				if d != "repo" && d != "outside" {
					d = filepath.Join("repo", d)
				}
				if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, data := range map[string]string{"repo/main.go": mainGo, "repo/go.mod": goMod, "outside/notes.md": "outside\n"} {
				if err := os.WriteFile(filepath.Join(base, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, l := range tt.links {
				if err := os.Symlink(l[1], filepath.Join(root, l[0])); err != nil {
					t.Fatal(err)
				}
			}
			before := lstatTree(t, base)
			_, stderr, code := runOnce(t, "", append([]string{"rules", "--write", "--root", root}, tt.clients...)...)
			if code != tt.wantCode || tt.wantErr == "" && stderr != "" || !strings.Contains(stderr, "goplsmcp: rules: "+tt.wantErr) && tt.wantErr != "" {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tt.wantCode, tt.wantErr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("stderr is more than one line:\n%s", stderr)
			}
			after := lstatTree(t, base)
			for _, w := range tt.written {
				if _, ok := after[w]; !ok {
					t.Errorf("%s was not written", w)
				}
				delete(before, w)
				delete(after, w)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("entries changed that goplsmcp rules does not own (-before +after):\n%s", diff)
			}
		})
	}
}

// TestRulesKeepsFile checks what a rewrite keeps and refuses, through the
// binary: the mode exactly (not the umask's idea of it), no temporary file
// left, and a file with another hard link refused with the other name
// untouched.
func TestRulesKeepsFile(t *testing.T) {
	root := t.TempDir()
	agents := filepath.Join(root, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("# Agents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(agents, 0o666); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := runOnce(t, "", "rules", "--write", "--root", root, "codex"); code != 0 {
		t.Fatalf("rules --write codex: exit %d\n%s%s", code, stdout, stderr)
	}
	info, err := os.Stat(agents)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o666 {
		t.Errorf("AGENTS.md's mode after the write: %v, want 0666 kept", info.Mode())
	}
	got, _ := os.ReadFile(agents)
	if !strings.HasPrefix(string(got), "# Agents\n\n"+blockBegin+"\n") {
		t.Errorf("AGENTS.md after the write:\n%s", got)
	}
	for rel := range readTree(t, root) {
		if strings.Contains(rel, ".goplsmcp-") {
			t.Errorf("a temporary file was left: %s", rel)
		}
	}

	// CLAUDE.md shares its inode with notes.txt: writing it in place would
	// change notes.txt, renaming over it would cut the two apart.
	notes := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(notes, []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(notes, filepath.Join(root, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runOnce(t, "", "rules", "--write", "--root", root, "claude")
	if want := "goplsmcp: rules: CLAUDE.md: it has 2 hard links"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("a hard-linked CLAUDE.md: exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr, want)
	}
	a, errA := os.Stat(notes)
	b, errB := os.Stat(filepath.Join(root, "CLAUDE.md"))
	if got, _ := os.ReadFile(notes); string(got) != "notes\n" || errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("the hard-linked file was changed: %q, same file %v", got, errA == nil && errB == nil && os.SameFile(a, b))
	}
}

// TestWriteBlockGoFiles checks that writeBlock refuses a file the go
// command reads by its name alone, whatever a future client table says.
func TestWriteBlockGoFiles(t *testing.T) {
	root := t.TempDir()
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, rel := range []string{"main.go", "sub/x.go", "go.mod", "go.sum", "go.work", "go.work.sum"} {
		if _, err := writeBlock(r, rel, "", "body\n"); err == nil || !strings.Contains(err.Error(), "a file the go command reads") {
			t.Errorf("writeBlock(%s): %v, want it refused", rel, err)
		}
	}
	if files := readTree(t, root); len(files) != 0 {
		t.Errorf("files written: %v", files)
	}
}
