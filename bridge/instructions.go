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

// instructionsTail is the guidance every session gets after the tools.
const instructionsTail = `Never build, run or test code to learn about it; ask these tools.
Positions are as go vet prints them, in answers and arguments: 1-based lines, 1-based byte columns (path:line:col). Unsure of a position? Pass symbol (e.g. "pkg.Type.Method") with the file, or add name to anchor it. text alone is a snippet checked in a scratch package.
Answers are lean; detailed: true adds docs and ranges, limit bounds lists.`

// InstructionsFor is the guidance for a session offered the tools that
// offered reports true for.
func InstructionsFor(offered func(tool string) bool) string {
	var b strings.Builder
	b.WriteString(instructionsHead + "\n")
	for _, line := range shared(catalogue, func(s *ToolSpec) string { return s.Instruction }, offered) {
		b.WriteString("- " + strings.Join(line.tools, ", ") + ": " + line.text + "\n")
	}
	b.WriteString(instructionsTail)
	return b.String()
}

// Instructions is the guidance for a session offered the default tools
// (gopls mcp's optional ones left out): what goplsmcp gives agents at
// initialize, and prints for AGENTS.md or CLAUDE.md.
var Instructions = InstructionsFor(func(tool string) bool { return !slices.Contains(OptionalTools, tool) })

// A sharedLine is a line of text and the tools that share it.
type sharedLine struct {
	tools []string
	text  string
}

// shared groups the offered tools of specs by the text of theirs that
// text returns, in the order of each text's first tool; a tool with none
// is left out.
func shared(specs []*ToolSpec, text func(*ToolSpec) string, offered func(tool string) bool) []sharedLine {
	var lines []sharedLine
	at := map[string]int{}
	for _, s := range specs {
		t := text(s)
		if t == "" || !offered(s.Name) {
			continue
		}
		i, ok := at[t]
		if !ok {
			i = len(lines)
			at[t] = i
			lines = append(lines, sharedLine{text: t})
		}
		lines[i].tools = append(lines[i].tools, s.Name)
	}
	return lines
}
