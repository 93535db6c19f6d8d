// Runs the real Codex CLI (@openai/codex, pinned in package-lock.json)
// non-interactively, `codex exec`, with goplsmcp registered as `goplsmcp
// config codex` prints it, against a scripted model: a stand-in for the
// OpenAI Responses API (POST /v1/responses, streamed as server-sent
// events, the only wire API Codex speaks) on a free loopback port, set as
// Codex's model provider. The stand-in plays an agent that
//
//   1. calls go_workspace,
//   2. then "thinks" for 20 s before its next turn,
//   3. then calls go_implementations of shapes.Shape,
//   4. then answers with a final message.
//
// The pause is the point: Codex starts its stdio MCP servers from a
// worker thread that ends after about 10 s idle, and Linux sends a
// PR_SET_PDEATHSIG signal when that thread ends, not when Codex does: a
// server that asked for one dies in the pause, and the second call fails
// ("Transport closed"). The run passes only if the tool outputs Codex
// sends back to the model are goplsmcp's answers for both calls (the
// copied project's root; Rect and Circle in shapes/shapes.go), Codex
// exits 0, and no goplsmcp of this run outlives it.
//
// Codex runs on a copy of the example module with its own CODEX_HOME and
// HOME in a temporary directory (nothing of the user's is read or
// written), no account (the provider needs no key), approvals and sandbox
// bypassed (--dangerously-bypass-approvals-and-sandbox: the stand-in asks
// for nothing but the two MCP calls), no update check or analytics, stdin
// closed. Codex hands MCP servers only a few variables of its environment,
// so GOPLSMCP_RUNTIME_DIR is given to goplsmcp in the server's env. The
// whole run is bounded: Codex is killed, with its process group, after
// 60 s; the servers it started (each in a group of its own) must end with
// it, and any that does not is killed by its PID. The run ends within
// about 90 s.
//
// Usage: node codex.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

import { Failures, fixture, options, run, shareEnv, tempDir } from './lib.mjs';

const opts = options();
const failures = new Failures();
const here = new URL('.', import.meta.url).pathname;
const codexJS = join(here, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
if (!existsSync(codexJS)) {
  console.error(`codex: no ${codexJS}; run npm ci in .interop`);
  process.exit(1);
}
const version = JSON.parse(readFileSync(join(here, 'node_modules/@openai/codex/package.json'), 'utf8')).version;

// The model's pause between the first tool answer and its next turn:
// twice the idle time after which Codex's worker thread ends.
const PAUSE_MS = 20000;
const CODEX_TIMEOUT_MS = 60000;
const NAMESPACE = 'mcp__goplsmcp';

// sse writes one Responses API stream event.
function sse(res, event) {
  res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

// answer ends a streamed response with output items.
function answer(res, id, items) {
  items.forEach((item, i) => sse(res, { type: 'response.output_item.done', output_index: i, item }));
  sse(res, { type: 'response.completed', response: { id, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } });
  res.end();
}

const toolCall = (callId, name, args) => ({
  type: 'function_call', id: `fc_${callId}`, call_id: callId, namespace: NAMESPACE, name, arguments: JSON.stringify(args),
});
const message = (text) => ({ type: 'message', role: 'assistant', id: 'msg_final', content: [{ type: 'output_text', text }] });

// outputText is a function_call_output's output as text: a string, or
// content items.
function outputText(item) {
  return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
}

// excerpt is the start of a tool output, on one line, for the transcript.
function excerpt(text) {
  const one = text.replace(/\s+/g, ' ');
  return one.length > 160 ? one.slice(0, 160) + '...' : one;
}

// standIn serves the scripted model. Each turn is told apart by the tool
// outputs the request carries, so a retried request gets the same answer.
function standIn(log) {
  const seen = { turns: 0, workspace: undefined, implementations: undefined, pausedMs: 0, tools: undefined };
  const timers = new Set();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (req.method !== 'POST' || !/\/v1\/responses$/.test(req.url)) {
        log(`stand-in: ${req.method} ${req.url}: 404`);
        res.writeHead(404).end();
        return;
      }
      let request;
      try {
        request = JSON.parse(body);
      } catch (err) {
        failures.fail('stand-in', 'a request that is not JSON', err.message);
        res.writeHead(400).end();
        return;
      }
      seen.turns++;
      const id = `resp_${seen.turns}`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      sse(res, { type: 'response.created', response: { id } });
      const outputs = new Map((request.input ?? []).filter((i) => i.type === 'function_call_output').map((i) => [i.call_id, outputText(i)]));
      if (outputs.has('call_implementations')) {
        seen.implementations = outputs.get('call_implementations');
        log(`stand-in: go_implementations output: ${excerpt(seen.implementations)}`);
        log(`stand-in: turn ${seen.turns}: go_implementations answered; final message`);
        answer(res, id, [message('Shape has two implementations: Rect and Circle.')]);
      } else if (outputs.has('call_workspace')) {
        seen.workspace = outputs.get('call_workspace');
        log(`stand-in: go_workspace output: ${excerpt(seen.workspace)}`);
        log(`stand-in: turn ${seen.turns}: go_workspace answered; thinking ${PAUSE_MS / 1000} s`);
        const started = Date.now();
        const timer = setTimeout(() => {
          timers.delete(timer);
          seen.pausedMs = Date.now() - started;
          log(`stand-in: turn ${seen.turns}: calling go_implementations`);
          answer(res, id, [toolCall('call_implementations', 'go_implementations', { file: 'shapes/shapes.go', symbol: 'Shape' })]);
        }, PAUSE_MS);
        timers.add(timer);
        res.on('close', () => { clearTimeout(timer); timers.delete(timer); });
      } else {
        seen.tools = (request.tools ?? []).find((t) => t.type === 'namespace' && t.name === NAMESPACE)?.tools?.map((t) => t.name);
        log(`stand-in: turn ${seen.turns}: ${NAMESPACE} offers ${seen.tools?.length ?? 0} tools; calling go_workspace`);
        answer(res, id, [toolCall('call_workspace', 'go_workspace', {})]);
      }
    });
  });
  const listening = new Promise((res, rej) => {
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => res(server.address().port));
  });
  const close = () => {
    for (const t of timers) clearTimeout(t);
    server.closeAllConnections();
    return new Promise((res) => server.close(res));
  };
  return { seen, listening, close };
}

// runCodex runs codex exec in its own process group, which is killed
// whole after timeoutMs.
function runCodex(args, { cwd, env, timeoutMs }) {
  return new Promise((res) => {
    const child = spawn(process.execPath, [codexJS, ...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    }, timeoutMs);
    child.on('error', (err) => { stderr += String(err); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal, killed, stdout, stderr });
    });
  });
}

// processesOf lists the processes still running with root in their
// arguments (goplsmcp --root ROOT, or its daemon), one "PID ARGS" a line.
function processesOf(root) {
  if (process.platform === 'win32') return [];
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim()).filter((l) => `${l} `.includes(`--root ${root} `));
}

const start = Date.now();
const project = fixture(opts.fixture);
const home = tempDir('goplsmcp-codex-');
const codexHome = join(home, '.codex');
// The servers Codex starts share a daemon: in make interop's runtime
// directory, or in one of this run's own, never the user's.
const runtimeDir = shareEnv.GOPLSMCP_RUNTIME_DIR ?? tempDir('goplsmcp-codex-rt-');
const share = { GOPLSMCP_RUNTIME_DIR: runtimeDir };
const log = (line) => console.log(`  ${((Date.now() - start) / 1000).toFixed(1)}s ${line}`);
const model = standIn(log);
try {
  const port = await model.listening;
  const cfg = await run(opts.server, ['config', 'codex'], { cwd: project, env: { ...process.env, ...share }, timeoutMs: 10000 });
  if (cfg.code !== 0 || !/^\[mcp_servers\.goplsmcp\]$/m.test(cfg.stdout)) {
    failures.fail('config codex', `exit ${cfg.code}, no [mcp_servers.goplsmcp] table`, cfg.stdout + cfg.stderr);
  } else {
    // Top-level keys come before any table in TOML: the provider first,
    // then the snippet as printed.
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), [
      'model = "stand-in"',
      'model_provider = "stand_in"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[model_providers.stand_in]',
      'name = "scripted stand-in"',
      `base_url = "http://127.0.0.1:${port}/v1"`,
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      cfg.stdout,
    ].join('\n'));
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      CODEX_HOME: codexHome,
      NO_COLOR: '1',
      TERM: 'dumb',
      ...share,
    };
    const r = await runCodex([
      'exec', '--json', '--ephemeral', '--skip-git-repo-check', '--strict-config', '--color', 'never',
      '--dangerously-bypass-approvals-and-sandbox',
      '-c', `mcp_servers.goplsmcp.env={GOPLSMCP_RUNTIME_DIR=${JSON.stringify(runtimeDir)}}`,
      '-C', project,
      'What implements shapes.Shape here? Ask goplsmcp.',
    ], { cwd: project, env, timeoutMs: CODEX_TIMEOUT_MS });

    // Codex's own account of the MCP calls, from its JSONL events.
    for (const line of r.stdout.split('\n')) {
      let ev;
      try { ev = JSON.parse(line); } catch { continue; }
      const item = ev.item;
      if (ev.type === 'item.completed' && item?.type === 'mcp_tool_call') {
        log(`codex: ${item.server}/${item.tool} ${item.status}${item.error ? ': ' + JSON.stringify(item.error) : ''}`);
      }
    }
    const { seen } = model;
    const where = `codex exec (exit ${r.code ?? r.signal})`;
    if (r.killed) failures.fail(where, `did not finish within ${CODEX_TIMEOUT_MS / 1000} s`);
    else if (r.code !== 0) failures.fail(where, 'failed');
    for (const tool of ['go_workspace', 'go_implementations']) {
      if (!seen.tools?.includes(tool)) failures.fail('tools', `Codex did not offer the model ${NAMESPACE} ${tool}`, JSON.stringify(seen.tools));
    }
    if (seen.workspace === undefined) {
      failures.fail('go_workspace', 'no tool output came back to the model');
    } else if (!seen.workspace.includes(JSON.stringify(project).slice(1, -1))) {
      failures.fail('go_workspace', 'the output is not goplsmcp\'s answer for the project', seen.workspace.slice(0, 500));
    }
    if (seen.implementations === undefined) {
      failures.fail(`go_implementations after ${PAUSE_MS / 1000} s`, 'no tool output came back to the model');
    } else if (!['shapes/shapes.go', 'Rect', 'Circle'].every((s) => seen.implementations.includes(s))) {
      failures.fail(`go_implementations after ${PAUSE_MS / 1000} s`, 'the output is not goplsmcp\'s answer', seen.implementations.slice(0, 500));
    } else if (seen.pausedMs < PAUSE_MS) {
      failures.fail('pause', `the model paused ${seen.pausedMs} ms`);
    }
    if (failures.count > 0) {
      console.error(`  codex stderr (last lines):\n${r.stderr.trimEnd().split('\n').slice(-15).map((l) => '    ' + l).join('\n')}`);
    }
  }
} catch (err) {
  failures.fail('codex', 'run', err.stack);
} finally {
  await model.close();
  await run(opts.server, ['daemon', 'stop'], { cwd: project, env: { ...process.env, ...share }, timeoutMs: 15000 });
  // Codex closes its servers' stdin as it exits: each goplsmcp must end
  // then. Any still running 5 s after the daemon stopped is a leak of
  // this run; it is killed, by its PID.
  let left = processesOf(project);
  for (const deadline = Date.now() + 5000; left.length > 0 && Date.now() < deadline; left = processesOf(project)) {
    await new Promise((res) => setTimeout(res, 200));
  }
  if (left.length > 0) {
    failures.fail('cleanup', 'goplsmcp processes of this run outlived Codex', left.join('\n'));
    for (const l of left) {
      try { process.kill(Number(l.split(' ')[0]), 'SIGKILL'); } catch { /* gone */ }
    }
  }
  const dirs = [project, home];
  if (!shareEnv.GOPLSMCP_RUNTIME_DIR) dirs.push(runtimeDir);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
if (failures.count > 0) {
  console.error(`codex: ${failures.count} failure(s) with @openai/codex ${version}`);
  process.exit(1);
}
console.log(`codex: Codex ${version} kept goplsmcp across a ${PAUSE_MS / 1000} s pause: go_workspace, then go_implementations, both answered (${Date.now() - start} ms)`);
