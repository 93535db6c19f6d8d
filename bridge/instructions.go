package bridge

// Instructions is the guidance goplsmcp gives agents at initialize, and
// prints for AGENTS.md or CLAUDE.md.
const Instructions = `goplsmcp answers questions about Go code from gopls, the Go language server, without running the code.
- Prefer these tools to grep and to reading whole files: go_symbol_references finds every use of a symbol, go_definition finds its declaration, go_describe gives its type and documentation, go_diagnostics lists compile and vet errors.
- Never build, run or test code to learn about it; ask these tools.
- Positions are 0-based lines and 0-based UTF-16 characters, as in the tools' answers (path:line:character; lists name each file once, its places below it as line:character). When unsure of a position, pass symbol (e.g. "pkg.Type.Method") with the file instead, or add name to anchor the position.
- To check an edit before saving it, pass file with the new text to go_diagnostics; text alone is a snippet checked in a scratch package. go_rename_symbol, go_format, go_organize_imports and go_code_actions return edits and a unified diff; they write nothing unless the call says apply: true and the server allows writes.
- Answers are lean by default; pass detailed: true for documentation and ranges, and limit to bound long lists.`
