// Registers goplsmcp with the real Claude Code CLI (@anthropic-ai/claude-code,
// pinned in package-lock.json) the two ways `goplsmcp config claude` says,
// on a copy of the example module, and asserts that `claude mcp list`
// reports it connected (Claude Code starts the server and initializes a
// session with it):
//
//   - project scope: the printed snippet as the project's .mcp.json, the
//     way a team shares it; Claude Code asks once before it starts a
//     project's servers, and enableAllProjectMcpServers in the user
//     settings is that approval given;
//   - local scope: `claude mcp add goplsmcp -- COMMAND ARGS`, with the
//     command and arguments of the snippet.
//
// Claude Code runs with a temporary HOME and CLAUDE_CONFIG_DIR (nothing
// of the user's is read or written), no credentials, stdin closed, and
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC (no update check, telemetry or
// error reports): mcp list needs no account and no network. Each command
// is killed after 90 s.
//
// Usage: node claude.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';

import { Failures, fixture, options, run, shareEnv, tempDir } from './lib.mjs';

const opts = options();
const failures = new Failures();
const here = new URL('.', import.meta.url).pathname;

// claudeBinary finds the native executable: npm's postinstall copies it
// over bin/claude.exe, but a run with scripts disabled leaves a stub
// there, so the platform package is looked in first.
function claudeBinary() {
  const os = platform() === 'win32' ? 'win32' : platform();
  const candidates = [`${os}-${arch()}`, `${os}-${arch()}-musl`].map((p) =>
    join(here, 'node_modules', '@anthropic-ai', `claude-code-${p}`, os === 'win32' ? 'claude.exe' : 'claude'));
  candidates.push(join(here, 'node_modules', '.bin', 'claude'));
  const found = candidates.find((c) => existsSync(c));
  if (!found) {
    console.error(`claude: no Claude Code executable under ${join(here, 'node_modules')}; run npm ci in .interop`);
    process.exit(1);
  }
  return found;
}

const claude = claudeBinary();
const version = JSON.parse(readFileSync(join(here, 'node_modules/@anthropic-ai/claude-code/package.json'), 'utf8')).version;

// claudeEnv is the environment of one Claude Code run: its own home and
// configuration directory, offline and quiet.
function claudeEnv(home) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // How long Claude Code waits for a server to start (ms).
    MCP_TIMEOUT: '60000',
    NO_COLOR: '1',
    TERM: 'dumb',
    ...shareEnv,
  };
}

// listed runs `claude mcp list` in the project and checks that it reports
// goplsmcp, started as command with args, connected.
async function listed(where, project, home, command, args) {
  const r = await run(claude, ['mcp', 'list'], { cwd: project, env: claudeEnv(home), timeoutMs: 90000 });
  const out = r.stdout + r.stderr;
  const line = out.split('\n').find((l) => l.startsWith('goplsmcp: '));
  if (r.killed) {
    failures.fail(where, 'claude mcp list did not finish within 90 s', out.slice(0, 500));
  } else if (r.code !== 0 || !line) {
    failures.fail(where, `claude mcp list (exit ${r.code}) does not list goplsmcp`, out.slice(0, 500));
  } else if (!line.startsWith(`goplsmcp: ${[command, ...args].join(' ')} - `)) {
    failures.fail(where, 'claude mcp list runs another command than the snippet', line);
  } else if (!/ - ✔ Connected$/.test(line.trimEnd())) {
    failures.fail(where, 'goplsmcp is not connected', line);
  } else {
    console.log(`  claude ${where}: ${line.trim()}`);
  }
}

const start = Date.now();
const project = fixture(opts.fixture);
const homes = [];
try {
  const cfg = await run(opts.server, ['config', 'claude'], { cwd: project, env: process.env, timeoutMs: 30000 });
  if (cfg.code !== 0) {
    failures.fail('config claude', `exit ${cfg.code}`, cfg.stderr);
  } else {
    const entry = JSON.parse(cfg.stdout).mcpServers.goplsmcp;
    if (!/claude mcp add goplsmcp -- COMMAND ARGS/.test(cfg.stderr)) {
      failures.fail('config claude', 'the hint no longer names claude mcp add', cfg.stderr);
    }

    // Project scope: .mcp.json as printed, approved in the user settings.
    const home = tempDir('goplsmcp-claude-');
    homes.push(home);
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ enableAllProjectMcpServers: true }));
    writeFileSync(join(project, '.mcp.json'), cfg.stdout);
    await listed('.mcp.json', project, home, entry.command, entry.args);
    rmSync(join(project, '.mcp.json'));

    // Local scope: claude mcp add with the snippet's command and args.
    const home2 = tempDir('goplsmcp-claude-');
    homes.push(home2);
    const add = await run(claude, ['mcp', 'add', '--scope', 'local', 'goplsmcp', '--', entry.command, ...entry.args],
      { cwd: project, env: claudeEnv(home2), timeoutMs: 90000 });
    if (add.code !== 0) {
      failures.fail('claude mcp add', `exit ${add.code}`, (add.stdout + add.stderr).slice(0, 500));
    } else {
      await listed('mcp add', project, home2, entry.command, entry.args);
    }
  }
} catch (err) {
  failures.fail('claude', 'run', err.stack);
} finally {
  // The servers Claude Code started shared a daemon (in make interop's
  // runtime directory), whose gopls keeps its cache in the temporary
  // home: it stops before the home is removed.
  if (shareEnv.GOPLSMCP_RUNTIME_DIR) {
    await run(opts.server, ['daemon', 'stop'], { cwd: project, env: { ...process.env, ...shareEnv }, timeoutMs: 30000 });
  }
  for (const d of [project, ...homes]) rmSync(d, { recursive: true, force: true });
}
if (failures.count > 0) {
  console.error(`claude: ${failures.count} failure(s) with @anthropic-ai/claude-code ${version}`);
  process.exit(1);
}
console.log(`claude: Claude Code ${version} reports goplsmcp connected, from .mcp.json and from claude mcp add (${Date.now() - start} ms)`);
