// Drives gopls mcp (bin/gopls mcp, the peer goplsmcp is a drop-in for) and
// goplsmcp with the same TypeScript SDK v2 client, pinned to the stateless
// 2026-07-28 revision, over stdio, on one copy of the example module. It
// lists both tool sets and, for every tool both list, makes the same calls
// of both (gopls mcp's parameter names, absolute paths, as its own golden
// tests call it): wherever gopls mcp answers without a tool error,
// goplsmcp must too. A tool gopls mcp lists that goplsmcp does not also
// fails the run. Prints one line per tool; any failure exits with status 1.
//
// Usage: node modern-peer.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { calls } from './calls.mjs';
import { Failures, fixture as copyFixture, options, shareEnv } from './lib.mjs';

const opts = options();
const modernVersion = '2026-07-28';
const start = Date.now();
// Both read the example's offline vulnerability database: gopls mcp from
// its environment, goplsmcp from --env (it passes gopls no other).
const vulnDB = 'GOVULNDB=file://' + resolve(opts.fixture, '../vulncheck/vulndb');
const failures = new Failures();
const fail = (...a) => failures.fail(...a);

// moreCalls are calls beyond calls.mjs's good one, in the forms of gopls
// mcp's golden tests: the workspace's diagnostics with no files, a method
// by Type.Method, and the misses its goldens answer with an error (which
// goplsmcp need not match, but whose outcome is printed).
const moreCalls = {
  go_diagnostics: [{}, { files: [] }, { files: ['main.go', 'shapes/shapes.go'] }],
  go_symbol_references: [{ file: 'main.go', symbol: 'shapes.Rect.Area' }, { file: 'shapes/shapes.go', symbol: 'NoSuchSymbol' }],
  go_search: [{ query: 'area' }, { query: 'zzzznothing' }],
  go_file_context: [{ file: 'shapes/shapes.go' }, { file: 'nope.go' }],
  go_package_api: [{ packagePaths: ['example.com/shapes/shapes', 'example.com/shapes/report'] }],
  // Last, in case either applied it: both are asked before any rename.
  go_rename_symbol: [{ file: 'shapes/shapes.go', symbol: 'NonExistent', new_name: 'Bar' }],
};

// absolute gives file and files as absolute paths in root, as gopls mcp
// takes them (goplsmcp takes both forms).
function absolute(root, args) {
  const out = { ...args };
  if (typeof out.file === 'string') out.file = join(root, out.file);
  if (Array.isArray(out.files)) out.files = out.files.map((f) => join(root, f));
  return out;
}

const text = (res) => res.content?.find((c) => c.type === 'text')?.text ?? '';

// outcome is one call's result in a word and its first line; a thrown
// error (a protocol error, not a tool error) counts as an error too.
async function outcome(client, tool, args) {
  const t0 = Date.now();
  try {
    const res = await client.callTool({ name: tool, arguments: args }, { timeout: 20000 });
    return { ok: !res.isError, line: text(res).split('\n')[0].slice(0, 60), ms: Date.now() - t0 };
  } catch (err) {
    return { ok: false, line: 'threw ' + err.message.split('\n')[0].slice(0, 60), ms: Date.now() - t0 };
  }
}

async function connect(name, command, args, cwd, env = {}) {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { ...getDefaultEnvironment(), ...shareEnv, ...env },
    stderr: 'pipe',
  });
  const logs = [];
  transport.stderr?.on('data', (d) => logs.push(d.toString()));
  const client = new Client({ name: 'goplsmcp-interop-modern-peer', version: '0' }, { versionNegotiation: { mode: { pin: modernVersion } } });
  try {
    await client.connect(transport, { timeout: 20000 });
  } catch (err) {
    console.error(logs.join(''));
    throw new Error(`${name}: connect: ${err.message}`);
  }
  if (client.getNegotiatedProtocolVersion() !== modernVersion) {
    fail(name, `negotiated ${client.getProtocolEra()} ${client.getNegotiatedProtocolVersion()}, want ${modernVersion}`);
  }
  return { client, logs };
}

const root = copyFixture(opts.fixture);
let peer, ours;
try {
  // gopls mcp serves the workspace of its working directory. goplsmcp
  // runs a gopls of its own too (--share off), which dies with it: the
  // script leaves no daemon behind.
  peer = await connect('gopls mcp', opts.gopls, ['mcp'], root, { GOVULNDB: vulnDB.slice('GOVULNDB='.length) });
  ours = await connect('goplsmcp', opts.server, ['--root', root, '--gopls', opts.gopls, '--share', 'off', '--env', vulnDB], root);
  const peerTools = (await peer.client.listTools()).tools.map((t) => t.name);
  const ourTools = (await ours.client.listTools()).tools.map((t) => t.name);
  const both = peerTools.filter((t) => ourTools.includes(t));
  for (const t of peerTools) if (!ourTools.includes(t)) fail('goplsmcp', `gopls mcp lists ${t}, goplsmcp does not`);
  if (both.length === 0) fail('tools', 'no tool is listed by both', `${peerTools} / ${ourTools}`);
  // Renames last: a call must not see the other server's edit.
  both.sort((a, b) => (a === 'go_rename_symbol') - (b === 'go_rename_symbol'));
  console.log(`  gopls mcp lists ${peerTools.length} tools, goplsmcp ${ourTools.length}; both: ${both.join(', ')}`);
  for (const tool of both) {
    if (!(tool in calls)) {
      fail(tool, 'calls.mjs has no call for it; add one');
      continue;
    }
    const cases = [calls[tool], ...(moreCalls[tool] ?? [])];
    let peerOK = 0, oursOK = 0;
    for (const c of cases) {
      const args = absolute(root, c);
      const p = await outcome(peer.client, tool, args);
      const o = await outcome(ours.client, tool, args);
      if (p.ok) peerOK++;
      if (o.ok) oursOK++;
      if (p.ok && !o.ok) fail(tool, `${JSON.stringify(c)}: gopls mcp answered (${p.line}), goplsmcp did not`, o.line);
      if (!p.ok) console.log(`    ${tool} ${JSON.stringify(c)}: gopls mcp: error (${p.line}); goplsmcp: ${o.ok ? 'answered' : 'error'} (${o.line})`);
    }
    console.log(`  ${tool}: ${cases.length} calls, gopls mcp answered ${peerOK}, goplsmcp ${oursOK}`);
  }
} catch (err) {
  fail('session', err.message);
  for (const s of [peer, ours]) if (s) console.error(s.logs.join(''));
} finally {
  await Promise.all([peer?.client.close(), ours?.client.close()]);
  rmSync(root, { recursive: true, force: true });
}
if (failures.count > 0) {
  console.error(`modern-peer: ${failures.count} failures`);
  process.exit(1);
}
console.log(`modern-peer: wherever gopls mcp answered the 2026-07-28 client, goplsmcp answered too (${Date.now() - start} ms)`);
