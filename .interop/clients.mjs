// Installs the repository's client packages with the real clients, pinned
// in package-lock.json, the way docs/agents.md tells users to, and asserts
// that each client starts goplsmcp and connects:
//
//   - Claude Code (@anthropic-ai/claude-code): `claude plugin validate` on
//     the marketplace (.claude-plugin/marketplace.json) and on the plugin
//     (clients/claude/goplsmcp: manifest, .mcp.json, skill); `claude plugin
//     install goplsmcp --marketplace REPO` (the repository as a local
//     marketplace), then `claude mcp list` in a copy of the example module
//     reports the plugin's server connected.
//   - Gemini CLI (@google/gemini-cli): `gemini extensions validate` of the
//     repository (the manifest an install from its URL reads) and of
//     clients/gemini/goplsmcp, then `gemini extensions install --consent
//     clients/gemini/goplsmcp` (a checkout's install, which copies that
//     directory, and nothing else of the repository, into HOME); `gemini
//     extensions list` names the server and the copy's context file
//     GOPLSMCP.md, and `gemini mcp list` reports the server connected.
//
// The plugin and the extension start `goplsmcp` from PATH, as an installed
// goplsmcp is: the directory of --server (bin/, with gopls beside it) comes
// first in PATH. Each client runs with a temporary HOME (nothing of the
// user's is read or written), no credentials, stdin closed, offline (no
// update checks or telemetry). Each command is killed after 90 s.
//
// Usage: node clients.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

import { Failures, fixture, needNode, options, run, shareEnv, tempDir } from './lib.mjs';

const opts = options();
const failures = new Failures();
const here = new URL('.', import.meta.url).pathname;
const repo = resolve(here, '..');
const path = dirname(opts.server) + delimiter + process.env.PATH;

function claudeBinary() {
  const os = platform() === 'win32' ? 'win32' : platform();
  const candidates = [`${os}-${arch()}`, `${os}-${arch()}-musl`].map((p) =>
    join(here, 'node_modules', '@anthropic-ai', `claude-code-${p}`, os === 'win32' ? 'claude.exe' : 'claude'));
  candidates.push(join(here, 'node_modules', '.bin', 'claude'));
  return candidates.find((c) => existsSync(c));
}

function pkgVersion(name) {
  return JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8')).version;
}

// step runs one client command and prints it with its output, the
// transcript a reader can compare with theirs; it fails the step on a
// non-zero exit or a timeout.
async function step(where, command, args, cwd, env) {
  const r = await run(command, args, { cwd, env, timeoutMs: 90000 });
  const out = (r.stdout + r.stderr).trimEnd();
  console.log(`$ ${where}\n${out.split('\n').map((l) => '  ' + l).join('\n')}`);
  if (r.killed) {
    failures.fail(where, 'did not finish within 90 s');
  } else if (r.code !== 0) {
    failures.fail(where, `exit ${r.code}`, out.slice(0, 500));
  }
  return out;
}

const start = Date.now();
const project = fixture(opts.fixture);
const homes = [];
// The servers the clients start share a daemon: in make interop's runtime
// directory, or in one of this run's own, never the user's; it is stopped
// at the end, before the homes its gopls keeps its cache in are removed.
const runtimeDir = shareEnv.GOPLSMCP_RUNTIME_DIR ?? tempDir('goplsmcp-clients-rt-');
const share = { GOPLSMCP_RUNTIME_DIR: runtimeDir };
try {
  // Claude Code.
  const claude = claudeBinary();
  if (!claude) {
    failures.fail('claude', 'no Claude Code executable; run npm ci in .interop');
  } else {
    const home = tempDir('goplsmcp-claude-');
    homes.push(home);
    const env = {
      PATH: path, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1', MCP_TIMEOUT: '60000', NO_COLOR: '1', TERM: 'dumb', ...share,
    };
    for (const dir of ['.', 'clients/claude/goplsmcp']) {
      const out = await step(`claude plugin validate ${dir}`, claude, ['plugin', 'validate', dir], repo, env);
      if (!out.includes('✔ Validation passed')) failures.fail(`claude plugin validate ${dir}`, 'no "Validation passed"');
    }
    // The one command docs/agents.md gives, with the repository as a path
    // (users give owner/repo): the marketplace is added, then the plugin
    // installed from it.
    await step('claude plugin install goplsmcp --marketplace REPO', claude, ['plugin', 'install', 'goplsmcp', '--marketplace', repo], project, env);
    const out = await step('claude mcp list', claude, ['mcp', 'list'], project, env);
    const line = out.split('\n').find((l) => l.startsWith('plugin:goplsmcp:goplsmcp: '));
    if (!line || !/ - ✔ Connected$/.test(line.trimEnd())) {
      failures.fail('claude mcp list', 'the plugin\'s goplsmcp is not listed connected', line);
    }
  }

  // Gemini CLI, on a Node.js it supports.
  needNode(20, 0, 'Gemini CLI');
  const gemini = join(here, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
  const home = tempDir('goplsmcp-gemini-');
  homes.push(home);
  // The project is trusted (as a user answering the prompt does); the
  // extension's consent prompt is answered by --consent.
  const env = { PATH: path, HOME: home, GEMINI_CLI_TRUST_WORKSPACE: 'true', NO_COLOR: '1', TERM: 'dumb', ...share };
  const node = process.execPath;
  const extension = join(repo, 'clients', 'gemini', 'goplsmcp');
  await step('gemini extensions validate REPO', node, [gemini, 'extensions', 'validate', repo], project, env);
  await step('gemini extensions validate REPO/clients/gemini/goplsmcp', node, [gemini, 'extensions', 'validate', extension], project, env);
  await step('gemini extensions install --consent REPO/clients/gemini/goplsmcp', node, [gemini, 'extensions', 'install', '--consent', extension], project, env);
  const installed = join(home, '.gemini', 'extensions', 'goplsmcp');
  const copied = existsSync(installed) ? readdirSync(installed).filter((f) => !f.startsWith('.')).sort() : [];
  if (copied.join(' ') !== 'GOPLSMCP.md gemini-extension.json') {
    failures.fail('gemini extensions install', `copied ${JSON.stringify(copied)} into ${installed}; want the manifest and GOPLSMCP.md alone`);
  }
  const list = await step('gemini extensions list', node, [gemini, 'extensions', 'list'], project, env);
  if (!/goplsmcp \(/.test(list) || !list.includes(join(installed, 'GOPLSMCP.md')) || !/MCP servers:\s*\n\s*goplsmcp/.test(list)) {
    failures.fail('gemini extensions list', 'does not show the extension with its server and GOPLSMCP.md');
  }
  const mcp = await step('gemini mcp list', node, [gemini, 'mcp', 'list'], project, env);
  if (!/goplsmcp \(from goplsmcp\): goplsmcp\s+\(stdio\) - Connected/.test(mcp)) {
    failures.fail('gemini mcp list', 'the extension\'s goplsmcp is not listed connected');
  }
} catch (err) {
  failures.fail('clients', 'run', err.stack);
} finally {
  await run(opts.server, ['daemon', 'stop'], { cwd: project, env: { ...process.env, ...share }, timeoutMs: 30000 });
  const dirs = [project, ...homes];
  if (!shareEnv.GOPLSMCP_RUNTIME_DIR) dirs.push(runtimeDir);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
const versions = `@anthropic-ai/claude-code ${pkgVersion('@anthropic-ai/claude-code')}, @google/gemini-cli ${pkgVersion('@google/gemini-cli')}`;
if (failures.count > 0) {
  console.error(`clients: ${failures.count} failure(s) with ${versions}`);
  process.exit(1);
}
console.log(`clients: the Claude Code plugin and the Gemini CLI extension install from the repository and connect goplsmcp (${versions}, ${Date.now() - start} ms)`);
