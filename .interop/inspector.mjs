// Runs the MCP Inspector's CLI (@modelcontextprotocol/inspector, pinned in
// package-lock.json) with --strict on goplsmcp's tools/list over stdio, on
// a copy of the example module: its schema portability lint must find
// nothing, neither errors (which --strict turns into exit status 6) nor
// warnings (such as a "type": ["null", "array"] node, which single-type
// dialects like Gemini's function declarations reject, or a node with no
// type). Needs Node.js 22.19 or later, like the Inspector.
//
// Usage: node inspector.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { fixture, needNode, options, run, tempDir } from './lib.mjs';

needNode(22, 19, 'the MCP Inspector');
const opts = options();
const here = new URL('.', import.meta.url).pathname;
const pkg = join(here, 'node_modules/@modelcontextprotocol/inspector');
const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;

const start = Date.now();
const root = fixture(opts.fixture);
const home = tempDir('goplsmcp-inspector-');
let failed = false;
try {
  // --format json puts the findings, if any, in the envelope on stdout
  // (stderr has the same in words, and the server's log). The Inspector
  // gives the server an environment of its own choosing, without
  // GOPLSMCP_RUNTIME_DIR: --share off, so that it starts no daemon.
  const r = await run(process.execPath, [join(pkg, 'clients/cli/build/index.js'), '--strict', '--format', 'json',
    '--method', 'tools/list', opts.server, '--root', root, '--gopls', opts.gopls, '--share', 'off'],
  { cwd: root, env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeoutMs: 90000 });
  let envelope;
  try {
    envelope = JSON.parse(r.stdout);
  } catch {
    envelope = undefined;
  }
  const tools = envelope?.result?.tools ?? [];
  const findings = (envelope?.schemaFindings ?? []).flatMap((t) => t.findings.map((f) => ({ tool: t.toolName, ...f })));
  if (r.code !== 0 || !envelope) {
    failed = true;
    console.error(`FAIL inspector --strict: exit ${r.killed ? 'killed after 90 s' : r.code}\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(-4000)}`);
  } else if (tools.length === 0 || tools.some((t) => !t.outputSchema)) {
    failed = true;
    console.error(`FAIL inspector --strict: ${tools.length} tools listed, not all with an outputSchema`);
  } else if (findings.length > 0) {
    failed = true;
    const errors = findings.filter((f) => f.severity === 'error').length;
    console.error(`FAIL inspector --strict: ${errors} errors, ${findings.length - errors} warnings`);
    for (const f of findings) console.error(`  ${f.severity} ${f.tool} ${f.schema}.${f.path}: ${f.issue}`);
  } else {
    console.log(`inspector: MCP Inspector ${version} --strict: 0 errors, 0 warnings across ${tools.length} tools (${Date.now() - start} ms)`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
if (failed) process.exit(1);
