package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/mod/semver"
	"golang.org/x/tools/txtar"
)

// TestReplayGoplsGoldens replays gopls's own golden tests of its MCP
// tools against goplsmcp: the txtar archives of
// internal/test/marker/testdata/mcptools in the pinned gopls module and
// in the older releases of replayedReleases, read from the module cache
// (never copied here). Each archive's module is written to a temporary
// directory, each //@mcptool marker is called through the real server
// (with the pinned gopls) on it, and the answer is compared with the
// marker's golden section fact by fact: goplsmcp answers in its own
// words, so what is compared is what both say. The facts of each tool are
// read by the functions of replayTools, which say which count and how
// they are matched. An archive or a marker this test expects that is not
// there fails it, so that it cannot pass by finding nothing, and so does
// an archive of gopls's that replayArchives does not name, so that none
// is left unread.
func TestReplayGoplsGoldens(t *testing.T) {
	releases := []goplsRelease{pinnedRelease(t)}
	for _, v := range replayedReleases {
		releases = append(releases, downloadRelease(t, v))
	}
	for _, r := range releases {
		dir := filepath.Join(r.dir, "internal", "test", "marker", "testdata", "mcptools")
		found, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		if err != nil || len(found) == 0 {
			t.Fatalf("gopls %s's MCP golden archives in %s: %v", r.version, dir, err)
		}
		for _, path := range found {
			if _, ok := replayArchives[filepath.Base(path)]; !ok {
				t.Errorf("gopls %s has the MCP golden archive %s, which replayArchives does not name; add it, with its markers", r.version, filepath.Base(path))
			}
		}
		t.Run(r.version, func(t *testing.T) {
			for _, archive := range slices.Sorted(maps.Keys(replayArchives)) {
				want := replayArchives[archive]
				t.Run(strings.TrimSuffix(archive, ".txt"), func(t *testing.T) {
					t.Parallel()
					ar, err := txtar.ParseFile(filepath.Join(dir, archive))
					if err != nil {
						t.Fatalf("gopls %s's archive %s: %v", r.version, archive, err)
					}
					replayArchive(t, r, ar, want)
				})
			}
		})
	}
}

// replayedReleases are the releases of gopls, older than the pinned one,
// whose MCP goldens are replayed too: v0.23.0's say in other words (its
// reference lines count from 0) what v0.24.0's do.
var replayedReleases = []string{"v0.23.0"}

// A goplsRelease is a release of the gopls module whose MCP goldens are
// replayed.
type goplsRelease struct {
	version string // e.g. v0.24.0
	dir     string // the module's directory in the module cache
}

// refLineBase is the number gopls mcp gives a file's first line in its
// references: 1 from v0.24.0, which called its earlier 0-based lines a
// bug, 0 before.
func (r goplsRelease) refLineBase() int {
	if semver.Compare(r.version, "v0.24.0") >= 0 {
		return 1
	}
	return 0
}

// diagBase is the number gopls mcp gives a file's first line and a
// line's first column in its diagnostics: 0 in every release replayed.
func (r goplsRelease) diagBase() int { return 0 }

// goplsmcpLineBase and goplsmcpColumnBase are the numbers goplsmcp gives a
// file's first line and a line's first column in the places it answers
// with: 1 and 1, as go build and go vet print them (the columns count
// bytes, which the archives' ASCII lines make the same as gopls mcp's
// UTF-16).
const (
	goplsmcpLineBase   = 1
	goplsmcpColumnBase = 1
)

// factPlace is a place as the facts compare it: line:column, both counted from
// 1, from a line and a column (decimal) counted from lineBase and
// colBase.
func factPlace(line, col string, lineBase, colBase int) string {
	l, _ := strconv.Atoi(line)
	c, _ := strconv.Atoi(col)
	return fmt.Sprintf("%d:%d", l+1-lineBase, c+1-colBase)
}

// pinnedRelease is the gopls module go.mod pins, in the module cache.
func pinnedRelease(t *testing.T) goplsRelease {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", "golang.org/x/tools/gopls").Output()
	if err != nil {
		t.Fatalf("finding the gopls module (make build downloads it): %v", err)
	}
	version, dir, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return goplsRelease{version: version, dir: dir}
}

// downloadRelease puts the gopls module of version in the module cache,
// as go mod download does (through the module proxy, unless it is there
// already), outside this module so that go.mod and go.sum stay as they
// are. With GOPROXY=off and the module absent, the test is skipped.
func downloadRelease(t *testing.T, version string) goplsRelease {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "golang.org/x/tools/gopls@"+version)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &mod); jerr == nil && mod.Error != "" {
		err = errors.New(mod.Error)
	}
	if err != nil || mod.Dir == "" {
		if proxy, _ := exec.Command("go", "env", "GOPROXY").Output(); strings.TrimSpace(string(proxy)) == "off" {
			t.Skipf("gopls %s is not in the module cache and GOPROXY=off: %v", version, err)
		}
		t.Fatalf("go mod download golang.org/x/tools/gopls@%s: %v", version, err)
	}
	return goplsRelease{version: version, dir: mod.Dir}
}

// replayArchives are the archives replayed and the markers each must hold,
// by tool: the 21 cases of the seven tools gopls mcp and goplsmcp share,
// and the 10 of gopls mcp's four optional tools.
var replayArchives = map[string]map[string]int{
	"context.txt":                     {"go_context": 6},
	"file_context.txt":                {"go_file_context": 1},
	"file_diagnostics.txt":            {"go_file_diagnostics": 2},
	"file_metadata.txt":               {"go_file_metadata": 1},
	"references.txt":                  {"go_references": 1},
	"package_api.txt":                 {"go_package_api": 1},
	"rename_symbol.txt":               {"go_rename_symbol": 2},
	"search.txt":                      {"go_search": 3},
	"symbol_references.txt":           {"go_symbol_references": 4},
	"workspace.txt":                   {"go_workspace": 1},
	"workspace_diagnostics.txt":       {"go_diagnostics": 6},
	"workspace_diagnostics_empty.txt": {"go_diagnostics": 3},
}

// A replayMarker is one //@mcptool call of an archive.
type replayMarker struct {
	tool   string
	args   string // JSON, with $WORKDIR
	output string // the golden section's name
	loc    string // the name of a //@loc marker, for location
	file   string // where the marker is, for messages
}

var (
	mcptoolMarker = regexp.MustCompile("//@ ?mcptool\\(\"([^\"]+)\", `([^`]*)`((?:, *\\w+=\\w+)*)\\)")
	namedArg      = regexp.MustCompile(`(\w+)=(\w+)`)
	locMarker     = regexp.MustCompile(`//@ ?loc\((\w+), *"([^"]+)"\)`)
)

// replayLoc is where a //@loc marker points: the first occurrence of its
// pattern on its line.
type replayLoc struct {
	file       string
	line, char int
	length     int
}

func replayArchive(t *testing.T, r goplsRelease, ar *txtar.Archive, want map[string]int) {
	root := realTempDir(t)
	golden := map[string]string{}
	var markers []replayMarker
	locs := map[string]replayLoc{}
	for _, f := range ar.Files {
		switch {
		case strings.HasPrefix(f.Name, "@"):
			golden[strings.TrimPrefix(f.Name, "@")] = string(f.Data)
			continue
		case f.Name == "flags" || f.Name == "settings.json":
			continue
		}
		writeWorkspaceFile(t, root, f.Name, f.Data)
		for i, line := range strings.Split(string(f.Data), "\n") {
			for _, m := range mcptoolMarker.FindAllStringSubmatch(line, -1) {
				mk := replayMarker{tool: m[1], args: m[2], file: fmt.Sprintf("%s:%d", f.Name, i+1)}
				for _, a := range namedArg.FindAllStringSubmatch(m[3], -1) {
					switch a[1] {
					case "output":
						mk.output = a[2]
					case "location":
						mk.loc = a[2]
					}
				}
				markers = append(markers, mk)
			}
			for _, m := range locMarker.FindAllStringSubmatch(line, -1) {
				if col := strings.Index(line, m[2]); col >= 0 {
					locs[m[1]] = replayLoc{file: f.Name, line: i, char: utf16Len(line[:col]), length: utf16Len(m[2])}
				}
			}
		}
	}
	got := map[string]int{}
	for _, mk := range markers {
		got[mk.tool]++
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the markers of the archive, by tool (-expected +found):\n%s", diff)
	}

	// gopls mcp's optional tools are offered as --tools would offer them.
	c := startStackOf(t, root, stackConfig{bridge: bridge.Config{Tools: bridge.OptionalTools}}).client
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, mk := range markers {
		section, ok := golden[mk.output]
		if !ok {
			t.Errorf("%s: no golden section @%s", mk.file, mk.output)
			continue
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(strings.ReplaceAll(mk.args, "$WORKDIR", root)), &args); err != nil {
			t.Fatalf("%s: arguments %s: %v", mk.file, mk.args, err)
		}
		if mk.loc != "" {
			l, ok := locs[mk.loc]
			if !ok {
				t.Fatalf("%s: no //@loc(%s, ...) marker", mk.file, mk.loc)
			}
			pos := func(char int) map[string]any { return map[string]any{"line": l.line, "character": char} } // an LSP position, as gopls mcp takes it
			args["location"] = map[string]any{
				"uri":   "file://" + filepath.ToSlash(filepath.Join(root, l.file)),
				"range": map[string]any{"start": pos(l.char), "end": pos(l.char + l.length)},
			}
		}
		tool := replayTools[mk.tool]
		if tool.ours == nil {
			t.Fatalf("%s: no facts are defined for %s", mk.file, mk.tool)
		}
		res, err := c.CallTool(ctx, mk.tool, args)
		if err != nil {
			t.Fatalf("%s: %s: %v", mk.file, mk.tool, err)
		}
		name := fmt.Sprintf("%s %s %s", mk.file, mk.tool, mk.args)
		if !res.IsError {
			checkFacts(t, name, mk.tool, args, res.Text(), res.StructuredContent)
		}
		wantFacts := tool.gopls(strings.ReplaceAll(section, "$WORKDIR/", ""), r)
		gotFacts := tool.ours(t, res)
		if len(wantFacts) == 0 && !strings.HasPrefix(strings.TrimSpace(section), "No ") {
			t.Fatalf("%s: found no facts in gopls's answer; the reader of %s does not know its form:\n%s", name, mk.tool, section)
		}
		if diff := cmp.Diff(wantFacts, gotFacts); diff != "" {
			t.Errorf("%s: facts (-gopls mcp %s +goplsmcp):\n%s\ngoplsmcp answered:\n%s", name, r.version, diff, res.Text())
		}
	}
}

// replayFacts reads the facts of one tool's answers: gopls reads gopls
// mcp's golden text (paths relative to the workspace, as $WORKDIR/ is
// removed) of a release, ours reads goplsmcp's result. Both return the
// facts sorted.
type replayFacts struct {
	gopls func(text string, r goplsRelease) []string
	ours  func(t *testing.T, res *mcp.ToolResultJSON) []string
}

// replayTools says, for each tool, which facts count:
//   - go_symbol_references: each reference as path:line: source line (the
//     declaration is one of them);
//   - go_workspace: the go.work file, and each main module with its go.mod;
//   - go_diagnostics: each diagnostic as path:line:character: severity:
//     message (goplsmcp may add the analyzer's name after the message),
//     and each diagnostic that has a quick fix;
//   - go_search: each symbol as path: kind name;
//   - go_file_context: the file's package, and each declaration it uses as
//     declaring file (package): kind name;
//   - go_package_api: each package's path and name, each file that
//     declares part of its API, and each declaration as kind name;
//   - go_rename_symbol: each line the rename removes or adds, by file; or,
//     when gopls mcp fails, that goplsmcp fails too, naming the symbol;
//   - go_references: as go_symbol_references;
//   - go_file_metadata: the file's package and each of the package's files;
//   - go_file_diagnostics: each diagnostic as line:character: severity:
//     message, each that has a quick fix, and each line the fix removes or
//     adds;
//   - go_context: the package (path and name), each declaration of each
//     file of it as package/file: kind name, each import of the file, and
//     each imported package outside the standard library with its
//     exported declarations the same way.
var replayTools = map[string]replayFacts{
	"go_references":        {goplsReferences, oursReferences},
	"go_file_metadata":     {goplsFileMetadata, oursFileMetadata},
	"go_file_diagnostics":  {goplsFileDiagnostics, oursFileDiagnostics},
	"go_context":           {goplsContext, oursContext},
	"go_symbol_references": {goplsReferences, oursReferences},
	"go_workspace":         {goplsWorkspace, oursWorkspace},
	"go_diagnostics":       {goplsDiagnostics, oursDiagnostics},
	"go_search":            {goplsSearch, oursSearch},
	"go_file_context":      {goplsFileContext, oursFileContext},
	"go_package_api":       {goplsPackageAPI, oursPackageAPI},
	"go_rename_symbol":     {goplsRename, oursRename},
}

// decodeResult decodes a successful result's structured content into out.
func decodeResult(t *testing.T, res *mcp.ToolResultJSON, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", res.Text())
	}
	if err := json.Unmarshal(res.StructuredContent, out); err != nil {
		t.Fatalf("decoding %s: %v", res.StructuredContent, err)
	}
}

func sorted(facts []string) []string {
	slices.Sort(facts)
	return slices.Compact(facts)
}

var (
	goplsRefFile = regexp.MustCompile("(?m)^Located in the file: (.*)\nThe reference is located on line (\\d+), which has content `(.*)`$")
	placeLine    = regexp.MustCompile(`^(\d+):(\d+)(?:-\d+:\d+)?: (.*)$`)
)

// goplsReferences reads gopls mcp's references as path:line: text facts,
// lines counted from 1.
func goplsReferences(text string, r goplsRelease) []string {
	var facts []string
	for _, m := range goplsRefFile.FindAllStringSubmatch(text, -1) {
		line, _ := strconv.Atoi(m[2])
		facts = append(facts, fmt.Sprintf("%s:%d: %s", m[1], line+1-r.refLineBase(), m[3]))
	}
	return sorted(facts)
}

// placeFacts turns places by file into path:line: text facts, lines
// counted from 1.
func placeFacts(t *testing.T, places *bridge.Places) []string {
	t.Helper()
	var facts []string
	places.All(func(file string, at []string) {
		for _, p := range at {
			m := placeLine.FindStringSubmatch(p)
			if m == nil {
				t.Errorf("%s: %q is not line:character: text", file, p)
				continue
			}
			line, _ := strconv.Atoi(m[1])
			facts = append(facts, fmt.Sprintf("%s:%d: %s", file, line+1-goplsmcpLineBase, m[3]))
		}
	})
	return sorted(facts)
}

func oursReferences(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.ReferencesOutput
	decodeResult(t, res, &out)
	if out.More.Len() > 0 {
		t.Errorf("references beyond the limit: %v", out.More.Keys())
	}
	return placeFacts(t, &out.Refs)
}

var (
	goplsWorkFile = regexp.MustCompile("defined by `([^`]+)`")
	goplsModule   = regexp.MustCompile(`(?m)^\t(\S+) \(module (\S+)\)$`)
)

func goplsWorkspace(text string, _ goplsRelease) []string {
	var facts []string
	if m := goplsWorkFile.FindStringSubmatch(text); m != nil {
		facts = append(facts, "go.work: "+m[1])
	}
	for _, m := range goplsModule.FindAllStringSubmatch(text, -1) {
		facts = append(facts, fmt.Sprintf("module %s: %s", m[2], m[1]))
	}
	return sorted(facts)
}

func oursWorkspace(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.WorkspaceOutput
	decodeResult(t, res, &out)
	var facts []string
	if out.GoWork != "" {
		facts = append(facts, "go.work: "+out.GoWork)
	}
	out.Modules.All(func(path string, m bridge.WorkspaceModule) {
		facts = append(facts, fmt.Sprintf("module %s: %s", path, m.GoMod))
	})
	return sorted(facts)
}

var (
	goplsDiagFile = regexp.MustCompile("^File `(.*)` has the following diagnostics:$")
	goplsDiag     = regexp.MustCompile(`^(\d+):(\d+)-\d+:\d+: \[(\w+)\] (.*)$`)
	// analyzerSuffix is the source goplsmcp adds after an analyzer's
	// message.
	analyzerSuffix = regexp.MustCompile(` \([\w.-]+\)$`)
)

// severityWords maps gopls mcp's severities to goplsmcp's.
var severityWords = map[string]string{"Error": "error", "Warning": "warning", "Information": "info", "Hint": "hint"}

func goplsDiagnostics(text string, r goplsRelease) []string {
	var facts []string
	var file, last string
	for _, line := range strings.Split(text, "\n") {
		if m := goplsDiagFile.FindStringSubmatch(line); m != nil {
			file = m[1]
			continue
		}
		if m := goplsDiag.FindStringSubmatch(line); m != nil && file != "" {
			last = file + ":" + factPlace(m[1], m[2], r.diagBase(), r.diagBase())
			facts = append(facts, fmt.Sprintf("%s: %s: %s", last, severityWords[m[3]], m[4]))
			continue
		}
		if line == "Fix:" && last != "" {
			facts = append(facts, last+": has a quick fix")
		}
	}
	return sorted(facts)
}

func oursDiagnostics(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.DiagnosticsOutput
	decodeResult(t, res, &out)
	var facts []string
	out.Files.All(func(file string, f bridge.FileDiagnostics) {
		if f.More > 0 {
			t.Errorf("%s: %d diagnostics beyond the limit", file, f.More)
		}
		for _, d := range f.At {
			m := placeLine.FindStringSubmatch(d)
			if m == nil {
				t.Errorf("%s: %q is not line:character: message", file, d)
				continue
			}
			sev, msg := "error", m[3]
			for _, s := range []string{"warning", "info", "hint"} {
				if rest, ok := strings.CutPrefix(msg, s+": "); ok {
					sev, msg = s, rest
				}
			}
			msg = analyzerSuffix.ReplaceAllString(msg, "")
			facts = append(facts, fmt.Sprintf("%s:%s: %s: %s", file, factPlace(m[1], m[2], goplsmcpLineBase, goplsmcpColumnBase), sev, msg))
		}
		for _, fix := range f.Fixes {
			if m := placeLine.FindStringSubmatch(fix); m != nil {
				facts = append(facts, fmt.Sprintf("%s:%s: has a quick fix", file, factPlace(m[1], m[2], goplsmcpLineBase, goplsmcpColumnBase)))
			}
		}
	})
	return sorted(facts)
}

var goplsSymbol = regexp.MustCompile("(?m)^\t(\\S+) \\((\\w+) in `([^`]+)`\\)$")

// kindWords maps gopls mcp's symbol kinds to goplsmcp's.
var kindWords = map[string]string{
	"Function": "func", "Method": "method", "Constant": "const", "Variable": "var", "Field": "field",
	"Type": "type", "Struct": "struct", "Interface": "interface", "Package": "package", "Namespace": "namespace",
}

func goplsSearch(text string, _ goplsRelease) []string {
	var facts []string
	for _, m := range goplsSymbol.FindAllStringSubmatch(text, -1) {
		kind, ok := kindWords[m[2]]
		if !ok {
			kind = strings.ToLower(m[2])
		}
		facts = append(facts, fmt.Sprintf("%s: %s %s", m[3], kind, m[1]))
	}
	return sorted(facts)
}

func oursSearch(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.SearchOutput
	decodeResult(t, res, &out)
	var facts []string
	out.Symbols.All(func(file string, at []string) {
		for _, p := range at {
			m := placeLine.FindStringSubmatch(p)
			if m == nil {
				t.Errorf("%s: %q is not line:character: kind name", file, p)
				continue
			}
			facts = append(facts, file+": "+m[3])
		}
	})
	return sorted(facts)
}

var (
	goplsFilePackage = regexp.MustCompile("is in package \"([^\"]+)\"")
	goplsDeclsFrom   = regexp.MustCompile(`^Referenced declarations from (\S+) \(package "([^"]+)"\):$`)
	// declName reads the kind and name a declaration's first line
	// declares, a method as Type.Method.
	declName = regexp.MustCompile(`^(func|type|var|const)\s+(?:\((?:\w+\s+)?\*?(\w+)(?:\[[^\]]*\])?\)\s*)?(\w+)`)
)

// declFact renders a declaration's first line as kind name, or "" when it
// declares nothing.
func declFact(line string) string {
	m := declName.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return ""
	}
	if m[2] != "" {
		return "method " + m[2] + "." + m[3]
	}
	return m[1] + " " + m[3]
}

// codeBlockDecls reads the declarations of a Go code block in gopls mcp's
// answers: the first line of each, doc comments left out.
func codeBlockDecls(lines []string) []string {
	var decls []string
	for _, line := range lines {
		if f := declFact(line); f != "" {
			decls = append(decls, f)
		}
	}
	return decls
}

func goplsFileContext(text string, _ goplsRelease) []string {
	var facts []string
	if m := goplsFilePackage.FindStringSubmatch(text); m != nil {
		facts = append(facts, "package "+m[1])
	}
	return sorted(append(facts, goplsCodeBlocks(text, goplsDeclsFrom, func(m []string) (string, string) {
		return fmt.Sprintf("%s (%s)", m[1], m[2]), ""
	})...))
}

// goplsCodeBlocks reads the declarations of the Go code blocks of gopls
// mcp's answer, each as label: kind name, the label from the last line
// that head matches before the block (which may also be a fact itself).
func goplsCodeBlocks(text string, head *regexp.Regexp, label func(m []string) (label, fact string)) []string {
	var facts []string
	var from string
	var block []string
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case head.MatchString(line):
			var fact string
			from, fact = label(head.FindStringSubmatch(line))
			if fact != "" {
				facts = append(facts, fact)
			}
		case line == "```go":
			inBlock, block = true, nil
		case line == "```" && inBlock:
			inBlock = false
			for _, d := range codeBlockDecls(block) {
				facts = append(facts, from+": "+d)
			}
		case inBlock:
			block = append(block, line)
		}
	}
	return facts
}

func oursFileContext(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.FileContextOutput
	decodeResult(t, res, &out)
	facts := []string{"package " + out.Package}
	out.Packages.All(func(pkg string, files bridge.Places) {
		files.All(func(file string, at []string) {
			for _, p := range at {
				m := placeLine.FindStringSubmatch(strings.SplitN(p, "\n", 2)[0])
				if m == nil {
					t.Errorf("%s: %q is not line:character: signature", file, p)
					continue
				}
				facts = append(facts, fmt.Sprintf("%s (%s): %s", file, pkg, declFact(m[3])))
			}
		})
	})
	return sorted(facts)
}

var goplsPackageHead = regexp.MustCompile(`(?m)^"([^"]+)" \(package (\w+)\)$`)

var goplsAPIFile = regexp.MustCompile(`^(\S+\.go):$`)

func goplsPackageAPI(text string, _ goplsRelease) []string {
	facts := goplsCodeBlocks(text, goplsPackageHead, func(m []string) (string, string) {
		return m[1], fmt.Sprintf("package %s %s", m[1], m[2])
	})
	// Each file that declares something, as a fact of its package.
	var pkg, file string
	var block []string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case goplsPackageHead.MatchString(line):
			pkg = goplsPackageHead.FindStringSubmatch(line)[1]
		case goplsAPIFile.MatchString(line):
			file = goplsAPIFile.FindStringSubmatch(line)[1]
		case line == "```go":
			block = nil
		case line == "```":
			if file != "" && len(codeBlockDecls(block)) > 0 {
				facts = append(facts, pkg+": file "+file)
			}
			file = ""
		default:
			block = append(block, line)
		}
	}
	return sorted(facts)
}

func oursPackageAPI(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.PackageAPIOutput
	decodeResult(t, res, &out)
	var facts []string
	out.Packages.All(func(path string, p bridge.PackageAPI) {
		if p.Error != "" {
			t.Errorf("%s: %s", path, p.Error)
		}
		facts = append(facts, fmt.Sprintf("package %s %s", path, p.Name))
		p.Decls.All(func(file string, decls []string) {
			facts = append(facts, path+": file "+file)
			for _, d := range decls {
				if f := declFact(d); f != "" {
					facts = append(facts, path+": "+f)
				}
			}
		})
	})
	return sorted(facts)
}

// diffFacts reads the lines a unified diff removes and adds, by file;
// prefix is what precedes a path on the +++ line.
func diffFacts(diff, prefix string) []string {
	var facts []string
	var file string
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(line, "+++ "), prefix)
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "@@"):
		case (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")) && file != "":
			facts = append(facts, fmt.Sprintf("%s: %s%s", file, line[:1], strings.TrimSpace(line[1:])))
		}
	}
	return sorted(facts)
}

var goplsResolveError = regexp.MustCompile(`failed to resolve name "(\w+)"`)

func goplsRename(text string, _ goplsRelease) []string {
	if m := goplsResolveError.FindStringSubmatch(text); m != nil {
		return []string{"error naming " + strconv.Quote(m[1])}
	}
	return diffFacts(text, "")
}

func oursRename(t *testing.T, res *mcp.ToolResultJSON) []string {
	if res.IsError {
		// The symbol named, as gopls mcp's error names it.
		if m := regexp.MustCompile(`"(\w+)"`).FindStringSubmatch(res.Text()); m != nil {
			return []string{"error naming " + strconv.Quote(m[1])}
		}
		return []string{"error: " + res.Text()}
	}
	var out struct {
		Diff string `json:"diff"`
	}
	decodeResult(t, res, &out)
	return diffFacts(out.Diff, "b/")
}

var (
	goplsMetadataHead = regexp.MustCompile("^File `[^`]+` is in package \"([^\"]+)\", which has the following files:$")
	goplsMetadataFile = regexp.MustCompile(`^\t(\S+)$`)
)

func goplsFileMetadata(text string, _ goplsRelease) []string {
	var facts []string
	for _, line := range strings.Split(text, "\n") {
		if m := goplsMetadataHead.FindStringSubmatch(line); m != nil {
			facts = append(facts, "package "+m[1])
		} else if m := goplsMetadataFile.FindStringSubmatch(line); m != nil {
			facts = append(facts, "file "+m[1])
		}
	}
	return sorted(facts)
}

func oursFileMetadata(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.FileMetadataOutput
	decodeResult(t, res, &out)
	facts := []string{"package " + out.Package}
	for _, f := range out.Files {
		facts = append(facts, "file "+f)
	}
	return sorted(facts)
}

func goplsFileDiagnostics(text string, r goplsRelease) []string {
	var facts []string
	var last string
	for _, line := range strings.Split(text, "\n") {
		if m := goplsDiag.FindStringSubmatch(line); m != nil {
			last = factPlace(m[1], m[2], r.diagBase(), r.diagBase())
			facts = append(facts, fmt.Sprintf("%s: %s: %s", last, severityWords[m[3]], m[4]))
		} else if line == "Fix:" && last != "" {
			facts = append(facts, last+": has a quick fix")
		}
	}
	return sorted(append(facts, diffFacts(text, "")...))
}

func oursFileDiagnostics(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.FileDiagnosticsOutput
	decodeResult(t, res, &out)
	var facts []string
	for _, d := range out.Diagnostics {
		m := placeLine.FindStringSubmatch(d.At)
		if m == nil {
			t.Errorf("%q is not line:character-line:character: message", d.At)
			continue
		}
		sev, msg := "error", m[3]
		for _, s := range []string{"error", "warning", "info", "hint"} {
			if rest, ok := strings.CutPrefix(msg, s+": "); ok {
				sev, msg = s, rest
			}
		}
		at := factPlace(m[1], m[2], goplsmcpLineBase, goplsmcpColumnBase)
		facts = append(facts, fmt.Sprintf("%s: %s: %s", at, sev, analyzerSuffix.ReplaceAllString(msg, "")))
		if d.Fix != "" {
			facts = append(facts, at+": has a quick fix")
			facts = append(facts, diffFacts(d.Diff, "b/")...)
		}
	}
	return sorted(facts)
}

var (
	goplsContextPackage = regexp.MustCompile(`^Current package "([^"]+)" \(package (\w+)\):$`)
	goplsContextFile    = regexp.MustCompile(`^(\S+\.go)(?: \(current file\))?:$`)
	goplsContextImports = regexp.MustCompile(`^Current file "[^"]+" contains this import declaration:$`)
	quotedPath          = regexp.MustCompile(`"([^"]+)"`)
)

func goplsContext(text string, _ goplsRelease) []string {
	var facts []string
	var pkg, file string
	var block []string
	inBlock, imports := false, false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case inBlock && line == "```":
			inBlock = false
			if imports {
				for _, l := range block {
					if m := quotedPath.FindStringSubmatch(l); m != nil {
						facts = append(facts, "imports "+m[1])
					}
				}
				imports = false
				continue
			}
			for _, d := range codeBlockDecls(block) {
				facts = append(facts, fmt.Sprintf("%s/%s: %s", pkg, file, d))
			}
		case inBlock:
			block = append(block, line)
		case line == "```go":
			inBlock, block = true, nil
		case goplsContextPackage.MatchString(line):
			m := goplsContextPackage.FindStringSubmatch(line)
			pkg = m[1]
			facts = append(facts, fmt.Sprintf("package %s %s", m[1], m[2]))
		case goplsPackageHead.MatchString(line):
			m := goplsPackageHead.FindStringSubmatch(line)
			pkg = m[1]
			facts = append(facts, fmt.Sprintf("imported %s %s", m[1], m[2]))
		case goplsContextImports.MatchString(line):
			imports = true
		case goplsContextFile.MatchString(line):
			file = goplsContextFile.FindStringSubmatch(line)[1]
		}
	}
	return sorted(facts)
}

func oursContext(t *testing.T, res *mcp.ToolResultJSON) []string {
	var out bridge.ContextOutput
	decodeResult(t, res, &out)
	if out.More.Len() > 0 {
		t.Errorf("declarations beyond the limit: %v", out.More.Keys())
	}
	facts := []string{fmt.Sprintf("package %s %s", out.Package, out.Name)}
	files := func(pkg string, fs *bridge.Places) {
		fs.All(func(file string, decls []string) {
			for _, d := range decls {
				for _, f := range codeBlockDecls(strings.Split(d, "\n")) {
					facts = append(facts, fmt.Sprintf("%s/%s: %s", pkg, filepath.Base(file), f))
				}
			}
		})
	}
	files(out.Package, &out.Files)
	for _, imp := range out.Imports {
		facts = append(facts, "imports "+imp)
	}
	out.Imported.All(func(path string, p bridge.ContextPackage) {
		facts = append(facts, fmt.Sprintf("imported %s %s", path, p.Name))
		files(path, &p.Files)
	})
	return sorted(facts)
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
