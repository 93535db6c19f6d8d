package bridge

import (
	"slices"
	"strings"
)

// Clients that load tools lazily show the model little more than the
// instructions: Codex shows their first line as the description of the
// tool namespace, Claude Code the instructions and the bare tool names,
// and both find a tool by keyword search over names and descriptions. So
// the first line says what goplsmcp answers and when to use it, and the
// rest names each tool by the question it answers, in an agent's words.

// instructionsHead is the first line: at most 120 characters.
const instructionsHead = "Go code answers from gopls: prefer these tools to grep, reading whole files or running code to find and check Go code."

// toolQuestions are the lines naming the tools, each by the question it
// answers. A line is shown when at least one of its tools is offered.
var toolQuestions = []struct {
	tools []string
	text  string // after the tool names
}{
	{[]string{"go_workspace"}, "modules, Go and gopls versions, load state; a good first call."},
	{[]string{"go_search"}, "where is a symbol declared? Find it by fuzzy name."},
	{[]string{"go_definition"}, "go to definition of a symbol or the identifier at a position."},
	{[]string{"go_source"}, "show me the code: one function, method or type, not the whole file."},
	{[]string{"go_symbol_references"}, "find usages: who uses this function, type, field or variable? radius: what a change reaches."},
	{[]string{"go_call_hierarchy"}, "who calls this function, and what does it call?"},
	{[]string{"go_implementations"}, "implementations of an interface; interfaces a type implements."},
	{[]string{"go_type_hierarchy"}, "supertypes and subtypes of a type."},
	{[]string{"go_describe"}, "type, signature and doc of an identifier (hover)."},
	{[]string{"go_signature"}, "the parameters of the call at a position."},
	{[]string{"go_symbols"}, "outline of a file."},
	{[]string{"go_file_context"}, "what a file uses from other files; read before editing."},
	{[]string{"go_package_api"}, "a package's exported API: workspace, standard library or dependency."},
	{[]string{"go_package_graph"}, "a package's imports, and who imports it."},
	{[]string{"go_diagnostics"}, "compile errors and vet warnings with quick fixes. After an edit, pass the changed files: errors in other packages too. file + text (or changes): an unsaved edit's new and fixed errors first."},
	{[]string{"go_complete"}, "completions at a position."},
	{[]string{"go_tokens"}, "semantic tokens of a file."},
	{[]string{"go_rename_symbol", "go_format", "go_organize_imports", "go_code_actions"}, "rename, gofmt, fix imports, quick fixes, refactorings (fill struct, extract, inline): a unified diff; apply: true writes it if the server allows."},
	{[]string{"go_vulncheck"}, "known vulnerabilities in dependencies."},
	{[]string{"go_close"}, "forget unsaved text or a snippet."},
	{[]string{"go_context", "go_file_diagnostics", "go_file_metadata", "go_references"}, "gopls mcp's optional tools, under its names and parameters."},
}

// instructionsTail is the guidance every session gets after the tools.
const instructionsTail = `Never build, run or test code to learn about it; ask these tools.
Positions are 0-based lines and 0-based UTF-16 characters, as in the answers (path:line:character, or a file once, then line:character). Unsure of a position? Pass symbol (e.g. "pkg.Type.Method") with the file, or add name to anchor it. text alone is a snippet checked in a scratch package.
Answers are lean; detailed: true adds docs and ranges, limit bounds lists.`

// InstructionsFor is the guidance for a session offered the tools that
// offered reports true for.
func InstructionsFor(offered func(tool string) bool) string {
	var b strings.Builder
	b.WriteString(instructionsHead + "\n")
	for _, q := range toolQuestions {
		var names []string
		for _, t := range q.tools {
			if offered(t) {
				names = append(names, t)
			}
		}
		if len(names) > 0 {
			b.WriteString("- " + strings.Join(names, ", ") + ": " + q.text + "\n")
		}
	}
	b.WriteString(instructionsTail)
	return b.String()
}

// Instructions is the guidance for a session offered the default tools
// (gopls mcp's optional ones left out): what goplsmcp gives agents at
// initialize, and prints for AGENTS.md or CLAUDE.md.
var Instructions = InstructionsFor(func(tool string) bool { return !slices.Contains(OptionalTools, tool) })
