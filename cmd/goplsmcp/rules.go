package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge"
)

// Steering files: the guidance an agent reads from the repository itself,
// for the clients that show a server's instructions poorly or not at all
// (Codex shows only their first line). GOPLSMCP.md holds the rules; each
// client's own file gets a short stub that points to it. Both are one
// marked block in their file, so that a person's text around it survives
// every run.

const (
	rulesFile  = "GOPLSMCP.md"
	blockBegin = "<!-- goplsmcp:begin (written by goplsmcp rules; edits inside are replaced) -->"
	blockEnd   = "<!-- goplsmcp:end -->"
)

// ruleClient is where one client reads project guidance, and how it is
// pointed to GOPLSMCP.md.
type ruleClient struct {
	file string // slash-separated, relative to the root
	// imports says the client includes a file named by @PATH in its
	// instructions (Claude Code, Gemini CLI, Cursor); the others are told
	// to read it.
	imports bool
	// head starts a new file, before the block (Cursor's rule metadata).
	head string
}

// ruleClients are the clients goplsmcp rules knows, by the names goplsmcp
// config uses.
var ruleClients = map[string]ruleClient{
	"claude": {file: "CLAUDE.md", imports: true},
	"codex":  {file: "AGENTS.md"},
	"gemini": {file: "GEMINI.md", imports: true},
	"cursor": {file: ".cursor/rules/goplsmcp.mdc", imports: true,
		head: "---\ndescription: Go code questions go to the goplsmcp MCP tools (gopls)\nalwaysApply: true\n---\n"},
	"vscode": {file: ".github/copilot-instructions.md"},
}

// ruleClientNames are the client names in the order files are listed.
var ruleClientNames = []string{"claude", "codex", "gemini", "cursor", "vscode"}

// rulesBody is GOPLSMCP.md's block: the rules, in the words of the
// instructions the server sends at initialize.
func rulesBody() string {
	var b strings.Builder
	b.WriteString("# Go code: ask gopls through the goplsmcp tools\n\n")
	b.WriteString("This repository's Go code is answered by the goplsmcp MCP server (gopls). ")
	b.WriteString("Use its tools, not grep, reading whole files, or building and running code, to find, understand and check Go code.\n\n")
	b.WriteString("## Which question goes to which tool\n\n")
	lines := strings.Split(bridge.Instructions, "\n")
	var tail []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "- ") {
			b.WriteString(l + "\n")
		} else if l != "" {
			tail = append(tail, l)
		}
	}
	b.WriteString("\n## Rules\n\n")
	b.WriteString("- Address code by symbol (`symbol: \"pkg.Type.Method\"` with `file`) rather than guessing line numbers.\n")
	b.WriteString("- After editing Go files, check them with `go_diagnostics` (pass the files you changed): it lists the errors the edit causes in other packages too. Before saving, `file` + `text` (or `changes` for several files) says which errors an edit introduces and removes.\n")
	b.WriteString("- Before changing a symbol's signature, `go_symbol_references` with `radius` shows what the change reaches.\n")
	for _, l := range tail {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// stubBody is a client file's block: a pointer to GOPLSMCP.md.
func stubBody(c ruleClient) string {
	if c.imports {
		return "Go code: use the goplsmcp MCP tools (gopls), not grep or running code, as " + rulesFile + " says:\n\n@" + rulesFile + "\n"
	}
	return "Go code: use the goplsmcp MCP tools (gopls), not grep or running code. Read " + rulesFile +
		" at the repository root before working on Go code: it says which question goes to which tool, " +
		"to address code by symbol, and to check every edit with go_diagnostics.\n"
}

// withBlock returns old with the marked block holding body: the block
// replaced in place if old has one, else appended after old's text (or
// after head, for a new file). A file whose marks are broken (a begin
// without an end) is refused rather than guessed at.
func withBlock(old []byte, exists bool, head, body string) ([]byte, error) {
	block := blockBegin + "\n" + body + blockEnd + "\n"
	s := string(old)
	i := strings.Index(s, blockBegin)
	if i >= 0 {
		j := strings.Index(s[i:], blockEnd)
		if j < 0 {
			return nil, errors.New("it has the goplsmcp begin mark without the end mark; mend or remove the mark, then run again")
		}
		end := i + j + len(blockEnd)
		if end < len(s) && s[end] == '\n' {
			end++
		}
		return []byte(s[:i] + block + s[end:]), nil
	}
	if !exists {
		return []byte(head + block), nil
	}
	switch {
	case s == "":
	case strings.HasSuffix(s, "\n\n"):
	case strings.HasSuffix(s, "\n"):
		s += "\n"
	default:
		s += "\n\n"
	}
	return []byte(s + block), nil
}

// runRules prints or writes the steering files: goplsmcp rules [--write]
// [--root DIR] [CLIENT...]. With no CLIENT, every client's stub.
func runRules(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("goplsmcp rules", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	write := flags.Bool("write", false, "write the files under the root (default: print them)")
	root := flags.String("root", ".", "the repository root the files go in")
	// Flags may come before or after the client names.
	var names []string
	rest := args
	for {
		if err := flags.Parse(rest); err != nil {
			return usageError("goplsmcp rules: %v; usage: goplsmcp rules [--write] [--root DIR] [CLIENT...], CLIENT one of %s", err, strings.Join(ruleClientNames, ", "))
		}
		if flags.NArg() == 0 {
			break
		}
		names = append(names, flags.Arg(0))
		rest = flags.Args()[1:]
	}
	if len(names) == 0 {
		names = ruleClientNames
	}
	var clients []ruleClient
	for _, n := range names {
		c, ok := ruleClients[n]
		if !ok {
			return usageError("goplsmcp rules: unknown client %q; CLIENT is one of %s", shortArg(n), strings.Join(ruleClientNames, ", "))
		}
		if !slices.Contains(clients, c) {
			clients = append(clients, c)
		}
	}
	type file struct {
		rel, head, body string
	}
	files := []file{{rel: rulesFile, body: rulesBody()}}
	for _, c := range clients {
		files = append(files, file{rel: c.file, head: c.head, body: stubBody(c)})
	}
	if !*write {
		for i, f := range files {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "==> %s <==\n", f.rel)
			out, _ := withBlock(nil, false, f.head, f.body)
			stdout.Write(out)
		}
		return nil
	}
	dir, err := filepath.Abs(*root)
	if err != nil {
		return fmt.Errorf("rules: %w", err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("rules: opening the root: %w", err)
	}
	defer r.Close()
	var done []fs.FileInfo
	var doneNames []string
	for _, f := range files {
		// One file under two names (CLAUDE.md a link to AGENTS.md, say)
		// gets the first name's block only: two blocks would replace each
		// other on every run.
		if info, err := r.Stat(filepath.FromSlash(f.rel)); err == nil {
			if i := slices.IndexFunc(done, func(d fs.FileInfo) bool { return os.SameFile(d, info) }); i >= 0 {
				fmt.Fprintf(stdout, "%s: the same file as %s, left as that\n", f.rel, doneNames[i])
				continue
			}
		}
		changed, err := writeBlock(r, f.rel, f.head, f.body)
		if err != nil {
			return fmt.Errorf("rules: %s: %w", f.rel, err)
		}
		state := "unchanged"
		if changed {
			state = "written"
		}
		fmt.Fprintf(stdout, "%s: %s\n", f.rel, state)
		if info, err := r.Stat(filepath.FromSlash(f.rel)); err == nil {
			done, doneNames = append(done, info), append(doneNames, f.rel)
		}
	}
	return nil
}

// writeBlock puts body's marked block in the file rel under the root r,
// and reports whether the file changed: an unchanged file is not written
// at all. r keeps every access inside the root, through symbolic links
// too. The new content goes to a temporary file beside the target, renamed
// over it, so that a failed write leaves the old file whole.
func writeBlock(r *os.Root, rel, head, body string) (bool, error) {
	name := filepath.FromSlash(rel)
	old, err := r.ReadFile(name)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	mode := fs.FileMode(0o644)
	if exists {
		info, err := r.Stat(name)
		if err != nil {
			return false, err
		}
		if !info.Mode().IsRegular() {
			return false, errors.New("not a regular file")
		}
		mode = info.Mode().Perm()
	}
	data, err := withBlock(old, exists, head, body)
	if err != nil {
		return false, err
	}
	if exists && bytes.Equal(data, old) {
		return false, nil
	}
	if d := path.Dir(rel); d != "." {
		if err := r.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
			return false, err
		}
	}
	if link, err := r.Lstat(name); err == nil && link.Mode()&fs.ModeSymlink != 0 {
		// A link (inside the root: r refuses one leading out) is
		// written through, in place: renaming over it would replace the
		// link with a copy.
		return true, r.WriteFile(name, data, mode)
	}
	tmp := name + ".goplsmcp-tmp"
	if err := r.WriteFile(tmp, data, mode); err != nil {
		return false, err
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return false, err
	}
	return true, nil
}
