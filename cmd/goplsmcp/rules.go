package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
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

// The committed GOPLSMCP.md is what goplsmcp rules writes: go generate
// writes it (TestClientPackages -update).
//
//go:generate go test -run ^TestClientPackages$ -update

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

// ruleFile is one file goplsmcp rules writes: its slash path under the
// root, the head of a new file, and its block's body.
type ruleFile struct {
	rel, head, body string
}

// runRules prints or writes the steering files: goplsmcp rules [--write]
// [--root DIR] [CLIENT...]. With no CLIENT, every client's stub; defaultRoot
// is the --root given before the word rules, if any.
func runRules(args []string, defaultRoot string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("goplsmcp rules", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	write := flags.Bool("write", false, "write the files under the root (default: print them)")
	if defaultRoot == "" {
		defaultRoot = "."
	}
	root := flags.String("root", defaultRoot, "the repository root the files go in")
	if wantsHelp(args) {
		return subcommandHelp(stdout, "usage: goplsmcp rules [--write] [--root DIR] [CLIENT...]\n\n"+
			"Prints (with --write, writes under the root) "+rulesFile+", the rules for Go code, and for each CLIENT\n"+
			"("+strings.Join(ruleClientNames, ", ")+"; default: all) a stub in the file it reads that points to it.\n"+
			"Each is a marked block: the text around it is kept, and a second run replaces only the block.", flags)
	}
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
	files := []ruleFile{{rel: rulesFile, body: rulesBody()}}
	for _, c := range clients {
		files = append(files, ruleFile{rel: c.file, head: c.head, body: stubBody(c)})
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
	// A file goplsmcp writes is never reached through a link. The one link
	// it tolerates is the common CLAUDE.md -> AGENTS.md: a link to another
	// file of this run, itself a plain file, which gets the block under its
	// own name.
	plain := map[string]fs.FileInfo{}
	for _, f := range files {
		if info, err := r.Lstat(filepath.FromSlash(f.rel)); err == nil && info.Mode().IsRegular() {
			plain[f.rel] = info
		}
	}
	for _, f := range files {
		if other, ok := linkedTo(r, f.rel, files, plain); ok {
			fmt.Fprintf(stdout, "%s: a link to %s, which gets the block\n", f.rel, other)
			continue
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
	}
	return nil
}

// linkedTo reports the file of files that rel is a symbolic link to, if
// rel is a link inside the root and that file is a plain file (in plain).
func linkedTo(r *os.Root, rel string, files []ruleFile, plain map[string]fs.FileInfo) (string, bool) {
	name := filepath.FromSlash(rel)
	if info, err := r.Lstat(name); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	// r follows links inside the root only.
	info, err := r.Stat(name)
	if err != nil {
		return "", false
	}
	for _, f := range files {
		if p, ok := plain[f.rel]; ok && f.rel != rel && os.SameFile(p, info) {
			return f.rel, true
		}
	}
	return "", false
}

// goFile reports whether name is one the go command reads: goplsmcp rules
// never writes one, whatever the client table or the links say.
func goFile(name string) bool {
	switch base := path.Base(name); base {
	case "go.mod", "go.sum", "go.work", "go.work.sum":
		return true
	default:
		return strings.HasSuffix(base, ".go")
	}
}

// writeBlock puts body's marked block in the file rel under the root r,
// and reports whether the file changed: an unchanged file is not written
// at all. It writes only a plain file that it alone names: the file and
// every directory on its way must not be symbolic links (a link would let
// a cloned repository aim the write at main.go or go.mod, or out of the
// root), and a file with other hard links is refused, since writing it
// would change the other names' content too and renaming over it would
// cut it off from them. The new content goes to a temporary file of an
// unpredictable name, created exclusively beside the target and renamed
// over it with the target's mode, so that a failed write leaves the old
// file whole.
func writeBlock(r *os.Root, rel, head, body string) (bool, error) {
	if goFile(rel) {
		return false, errors.New("it is a file the go command reads, which goplsmcp rules never writes")
	}
	name := filepath.FromSlash(rel)
	dir := path.Dir(rel)
	if err := plainDirs(r, dir, false); err != nil {
		return false, err
	}
	before, err := r.Lstat(name)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	var old []byte
	mode := fs.FileMode(0o644)
	if exists {
		if old, err = readPlain(r, name, before); err != nil {
			return false, err
		}
		mode = before.Mode().Perm()
	}
	data, err := withBlock(old, exists, head, body)
	if err != nil {
		return false, err
	}
	if exists && bytes.Equal(data, old) {
		return false, nil
	}
	if err := plainDirs(r, dir, true); err != nil {
		return false, err
	}
	tmp, err := writeTemp(r, dir, path.Base(rel), data, mode, exists)
	if err != nil {
		return false, err
	}
	// The last look before the rename: the target must still be the file
	// read (or still absent). rename replaces a name, never writes through
	// a link, so what can slip in after this cannot be written through.
	now, err := r.Lstat(name)
	if exists && (err != nil || !os.SameFile(before, now)) || !exists && !errors.Is(err, fs.ErrNotExist) {
		r.Remove(tmp)
		return false, errors.New("it changed while goplsmcp rules wrote it; nothing was written; run again")
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return false, err
	}
	return true, nil
}

// plainDirs checks that each directory on the way to dir (slash-separated,
// relative to r) is a real directory, not a symbolic link; with create, it
// makes the ones missing.
func plainDirs(r *os.Root, dir string, create bool) error {
	if dir == "." {
		return nil
	}
	at := ""
	for _, elem := range strings.Split(dir, "/") {
		at = path.Join(at, elem)
		name := filepath.FromSlash(at)
		info, err := r.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			if !create {
				return nil
			}
			if err := r.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			info, err = r.Lstat(name)
		}
		switch {
		case err != nil:
			return err
		case info.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link, and goplsmcp rules writes only into real directories of the root; replace the link with a directory or remove it, then run again", at)
		case !info.IsDir():
			return fmt.Errorf("%s is not a directory", at)
		}
	}
	return nil
}

// readPlain returns the bytes of name, whose Lstat is info, if it is a
// plain file: regular, not a link, with no other hard link. The file
// opened must be the one looked at.
func readPlain(r *os.Root, name string, info fs.FileInfo) ([]byte, error) {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, errors.New("it is a symbolic link, and goplsmcp rules writes only plain files; replace the link with a file or remove it, then run again")
	case !info.Mode().IsRegular():
		return nil, errors.New("it is not a regular file, and goplsmcp rules writes only plain files")
	}
	data, links, err := readChecked(r, name, info)
	switch {
	case errors.Is(err, errChangedWhileRead):
		return nil, errors.New("it changed while goplsmcp rules read it; nothing was written; run again")
	case err == nil && links > 1:
		return nil, fmt.Errorf("it has %d hard links, and goplsmcp rules writes only a file no other name shares; copy it to a file of its own, then run again", links)
	}
	return data, err
}

// errChangedWhileRead: the file opened is not the one looked at.
var errChangedWhileRead = errors.New("the file changed while it was read")

// readChecked reads name in r, whose Lstat is info, if the file opened is
// the one looked at (errChangedWhileRead otherwise), and says how many
// names the file has: the writers here replace only a file of one name.
func readChecked(r *os.Root, name string, info fs.FileInfo) (data []byte, links uint64, err error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !os.SameFile(info, opened) {
		return nil, 0, errChangedWhileRead
	}
	if links = linkCount(f, opened); links > 1 {
		return nil, links, nil
	}
	data, err = io.ReadAll(f)
	return data, links, err
}

// writeTemp writes data to a new temporary file in dir beside base, and
// returns its name. The name is unpredictable and the file created
// exclusively, so that nothing in the repository can stand in for it. An
// existing target's mode is set exactly (the umask does not apply to it);
// a new file gets 0644 less the umask, as any new file.
func writeTemp(r *os.Root, dir, base string, data []byte, mode fs.FileMode, exists bool) (string, error) {
	var f *os.File
	var name string
	for range 10 {
		var b [8]byte
		rand.Read(b[:])
		name = filepath.Join(filepath.FromSlash(dir), "."+base+".goplsmcp-"+hex.EncodeToString(b[:]))
		var err error
		f, err = r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	if f == nil {
		return "", errors.New("no free temporary name beside it")
	}
	_, err := f.Write(data)
	if err == nil && exists {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Remove(name)
		return "", err
	}
	return name, nil
}
