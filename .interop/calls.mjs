// The good and bad calls of every tool on testdata/example, shared by
// interop.mjs (the 2025 SDK), modern.mjs (the 2026-07-28 client) and
// modern-peer.mjs.

import { readFileSync } from 'node:fs';

// Each default tool's good and bad sample call, as bridge's catalogue
// declares them (catalogue.json is written by go generate ./bridge, and a
// Go test keeps it current). Positions are as go vet prints them (1-based
// lines, 1-based byte columns); main.go line 13 is
// "\tfmt.Println(report.Summary(list))".
const catalogue = JSON.parse(readFileSync(new URL('./catalogue.json', import.meta.url), 'utf8')).tools;

// The arguments of each tool's good call on testdata/example. Every tool
// the server lists must have an entry: a new tool without one fails the run.
export const calls = Object.fromEntries(catalogue.map((t) => [t.name, t.good]));
// wants are a fragment of each good call's text.
export const wants = Object.fromEntries(catalogue.map((t) => [t.name, t.want]));

// A bad call of each tool, on testdata/example, and a pattern its message
// must match: a file that does not exist or is outside the root, an
// unknown symbol, a position past the end, a value out of range, gopls
// refusing.
export const badCalls = Object.fromEntries(catalogue.map((t) => [t.name, [t.bad, new RegExp(t.error)]]));

// More calls, for the cases the table's one call per tool leaves out.
export const extraCalls = [
  ['go_diagnostics', {}],
  ['go_diagnostics', { file: 'main.go', text: 'package main\n\nfunc main() { var x int = "no" }\n' }],
  ['go_definition', { file: 'main.go', symbol: 'report.Largest', kind: 'type' }],
  ['go_code_actions', { file: 'broken/broken.go', line: 8, column: 10 }],
];
