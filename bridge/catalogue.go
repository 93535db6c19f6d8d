package bridge

import (
	"slices"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// A ToolSpec is everything about one tool, declared once in the tool's
// file: what tools/list shows, its line in the instructions and in the
// Claude skill, its rows in docs/tools.md and the README, a good and a
// bad sample call with what each must answer, and the questions agents
// ask for it. The instructions, the skill, GOPLSMCP.md, the docs' tables,
// the tests' sample calls and .interop's calls are all derived from the
// catalogue (see Catalogue), so a new tool is its file and its line in
// catalogue below.
type ToolSpec struct {
	// Name, Title, Description and Narrow are the tool's in tools/list
	// (see mcp.Tool). An editing tool's description gets the note of
	// whether apply: true may write (edit.Proposer.Note).
	Name, Title, Description, Narrow string
	// Edits says the tool proposes edits that apply: true writes when the
	// server allows writes (--allow-write); every other tool only reads.
	Edits bool
	// Optional marks gopls mcp's optional tools, offered only when
	// --tools names them (see OptionalTools).
	Optional bool
	// Instruction is the tool's line in the instructions, after the tool
	// names: the question it answers, in an agent's words. Tools with the
	// same line share it, at the place of the first.
	Instruction string
	// Skill is the question of the tool's row in the Claude skill's table;
	// tools with the same question share the row.
	Skill string
	// Doc is what the tool answers, in docs/tools.md's table; Summary the
	// shorter line of the README's (empty: the tool is not in it).
	Doc, Summary string
	// Good is a call on testdata/example that must answer without a tool
	// error, its text containing Want. Bad is one that must answer a tool
	// error whose message matches the regular expression Want (a syntax
	// that Go and JavaScript read alike). Both are made by TestOutputSchemas,
	// TestNoWrites and .interop's clients.
	Good, Bad Sample
	// Framing are the phrases of the tool's text (regular expressions,
	// each line matched on its own) that only restate what its structured
	// result says by its member names and structure, such as the nouns
	// of a count line ("3 references to Foo in 2 files" over refs by
	// file). Every other word and number of the text must be in the
	// structured result, since Claude Code's and Codex's models read only
	// that: a sentence that explains a count or a flag is a note, never
	// framing (TestFactsGoldens, and every answer TestGolden,
	// TestReplayGoplsGoldens and TestOutputSchemas get).
	Framing []string
	// Questions are how agents ask for the tool, written from how people
	// ask rather than from the description: TestToolSearch requires the
	// tool among the first three a BM25 search of tools/list ranks.
	Questions []string
	// add registers the tool on s as t (the spec's mcp.Tool).
	add func(b *Bridge, s *mcp.Server, t mcp.Tool) error
}

// A Sample is a tool call on a copy of testdata/example and what it must
// answer (see ToolSpec.Good and ToolSpec.Bad).
type Sample struct {
	// Args are the call's arguments as JSON; $ROOT stands for the
	// workspace root.
	Args string `json:"args"`
	// Want is a fragment of a good call's text, or a regular expression
	// a bad call's message matches.
	Want string `json:"want"`
}

// catalogue is the registry: every tool, in the order tools/list, the
// instructions and the docs list them. It is the only place besides its
// own file that names a tool.
var catalogue = []*ToolSpec{
	&workspaceTool,
	&searchTool,
	&definitionTool,
	&sourceTool,
	&symbolReferencesTool,
	&callHierarchyTool,
	&implementationsTool,
	&typeHierarchyTool,
	&describeTool,
	&signatureTool,
	&symbolsTool,
	&fileContextTool,
	&packageAPITool,
	&packageGraphTool,
	&diagnosticsTool,
	&completeTool,
	&tokensTool,
	&renameTool,
	&formatTool,
	&organizeImportsTool,
	&codeActionsTool,
	&vulncheckTool,
	&closeTool,
	&contextTool,
	&fileDiagnosticsTool,
	&fileMetadataTool,
	&locationReferencesTool,
}

// Catalogue returns every tool's spec, in the registry's order: the
// default tools, then gopls mcp's optional ones.
func Catalogue() []ToolSpec {
	out := make([]ToolSpec, 0, len(catalogue))
	for _, s := range catalogue {
		c := *s
		c.Questions = slices.Clone(s.Questions)
		c.Framing = slices.Clone(s.Framing)
		out = append(out, c)
	}
	return out
}

// DefaultTools are the names of the tools tools/list offers when --tools
// names none of the optional ones, in its order.
func DefaultTools() []string {
	var names []string
	for _, s := range catalogue {
		if !s.Optional {
			names = append(names, s.Name)
		}
	}
	return names
}

// OptionalTools are gopls mcp's tools that it offers only when its
// mcpTools setting names them: goplsmcp offers them, under their names
// and with their parameters, only when --tools names them, so that the
// default tools/list stays lean.
var OptionalTools = optionalTools()

func optionalTools() []string {
	var names []string
	for _, s := range catalogue {
		if s.Optional {
			names = append(names, s.Name)
		}
	}
	return names
}

// tool is the mcp.Tool of spec as this bridge offers it: an editing
// tool's description and annotations say whether apply: true may write.
func (b *Bridge) tool(spec *ToolSpec) mcp.Tool {
	t := mcp.Tool{Name: spec.Name, Title: spec.Title, Description: spec.Description, Narrow: spec.Narrow, Annotations: readOnly()}
	if spec.Edits {
		t.Description += b.edits.Note()
		t.Annotations = b.editing()
	}
	return t
}

// addTools registers the catalogue's tools: every default one, and the
// optional ones Config.Tools names.
func (b *Bridge) addTools(s *mcp.Server) error {
	for _, spec := range catalogue {
		if spec.Optional && !slices.Contains(b.tools, spec.Name) {
			continue
		}
		if err := spec.add(b, s, b.tool(spec)); err != nil {
			return err
		}
	}
	return nil
}

// The tables of the README, docs/tools.md and the Claude skill, and
// .interop/catalogue.json, are written from the catalogue
// (TestCatalogueFiles -update).
//
//go:generate go test -run ^TestCatalogueFiles$ -update
