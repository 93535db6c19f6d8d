// The good calls of every tool on testdata/example, shared by interop.mjs
// (the 2025 SDK) and modern.mjs (the 2026-07-28 client).

// The arguments of each tool's call on testdata/example. Every tool the
// server lists must have an entry: a new tool without one fails the run.
// Positions are 0-based; main.go line 12 is
// "\tfmt.Println(report.Summary(list))".
export const calls = {
  go_workspace: {},
  go_search: { query: 'Rect' },
  go_file_context: { file: 'main.go' },
  go_package_api: { packagePaths: ['example.com/shapes/shapes'] },
  go_symbol_references: { file: 'shapes/shapes.go', symbol: 'TotalArea' },
  go_rename_symbol: { file: 'shapes/shapes.go', symbol: 'TotalArea', new_name: 'SumOfAreas' },
  go_diagnostics: { files: ['broken/broken.go'] },
  go_describe: { file: 'shapes/shapes.go', symbol: 'Rect.Area' },
  go_definition: { file: 'main.go', line: 12, character: 22, name: 'Summary' },
  go_implementations: { file: 'shapes/shapes.go', symbol: 'Shape' },
  go_symbols: { file: 'shapes/shapes.go' },
  go_complete: { file: 'main.go', line: 12, character: 20 },
  go_signature: { file: 'main.go', line: 12, character: 28 },
  go_tokens: { file: 'main.go' },
  go_format: { text: 'package scratch\nvar x=1\n' },
  go_organize_imports: { file: 'main.go' },
  go_code_actions: { text: 'package scratch\n\ntype P struct{ X, Y int }\n\nvar p = P{}\n', line: 4, character: 8, title: 'Fill P' },
  go_call_hierarchy: { file: 'shapes/shapes.go', symbol: 'TotalArea' },
  go_type_hierarchy: { file: 'shapes/shapes.go', symbol: 'Rect' },
  go_source: { file: 'main.go', symbol: 'report.Summary' },
  go_package_graph: { packagePaths: ['example.com/shapes/shapes'], depth: 2 },
  // The example's broken package does not compile, which govulncheck needs.
  go_vulncheck: { pattern: './shapes/...' },
  go_close: { file: 'main.go' },
};
// More calls, for the cases the table's one call per tool leaves out.
export const extraCalls = [
  ['go_diagnostics', {}],
  ['go_diagnostics', { file: 'main.go', text: 'package main\n\nfunc main() { var x int = "no" }\n' }],
  ['go_definition', { file: 'main.go', symbol: 'report.Largest', kind: 'type' }],
  ['go_code_actions', { file: 'broken/broken.go', line: 7, character: 9 }],
];
