// Checks the HTTP form of each client's configuration: it starts one
// goplsmcp --http with a token file on a copy of the example module, runs
// `goplsmcp config CLIENT --url URL` for claude, cursor, vscode, codex and
// gemini, reads the endpoint and the headers out of each snippet as that
// client does (its own syntax for the token: ${VAR}, ${env:VAR}, a VS Code
// input the user types, Codex's bearer_token_env_var), with the token in
// GOPLSMCP_TOKEN and nowhere else, and connects the official MCP
// TypeScript SDK client with them: list the tools, ask go_workspace, check
// the root. A connection without the snippet's headers must be refused.
// Any failure exits 1.
//
// Usage: node config-http.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const { values: opts } = parseArgs({
  options: { server: { type: 'string' }, gopls: { type: 'string' }, fixture: { type: 'string' } },
});
for (const k of ['server', 'gopls', 'fixture']) {
  if (!opts[k]) {
    console.error(`config-http: --${k} is required`);
    process.exit(2);
  }
}
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;
const server = resolve(opts.server);

let failures = 0;
function fail(where, what, detail = '') {
  failures++;
  console.error(`config-http: ${where}: ${what}${detail ? `: ${detail}` : ''}`);
}

// expand replaces the references pattern matches with the variables of
// env, as a client does; a reference to anything else stays as it is, as
// it would be sent.
function expand(value, pattern, env) {
  return value.replace(pattern, (ref, name) => (name in env ? env[name] : ref));
}

function expandHeaders(headers, pattern, env) {
  const out = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k] = expand(v, pattern, env);
  return out;
}

// connection reads a client's snippet as that client would, with env as
// its environment and typed as what its user types when asked.
function connection(client, snippet, env, typed) {
  if (client === 'codex') {
    const field = (key) => {
      const m = snippet.match(new RegExp(`^${key} = (.*)$`, 'm'));
      return m ? JSON.parse(m[1]) : undefined;
    };
    if (!/^\[mcp_servers\.goplsmcp\]$/m.test(snippet)) throw new Error('no [mcp_servers.goplsmcp] table');
    const headers = {};
    const tokenVar = field('bearer_token_env_var');
    if (tokenVar !== undefined) headers.Authorization = `Bearer ${env[tokenVar] ?? ''}`;
    return { url: field('url'), headers };
  }
  const doc = JSON.parse(snippet);
  switch (client) {
    case 'claude': {
      const e = doc.mcpServers?.goplsmcp;
      if (e?.type !== 'http') throw new Error(`type ${e?.type}, want http`);
      const ref = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;
      return { url: expand(e.url, ref, env), headers: expandHeaders(e.headers, ref, env) };
    }
    case 'cursor': {
      const e = doc.mcpServers?.goplsmcp;
      const ref = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
      return { url: expand(e.url, ref, env), headers: expandHeaders(e.headers, ref, env) };
    }
    case 'gemini': {
      const e = doc.mcpServers?.goplsmcp;
      if (!e?.httpUrl) throw new Error('no httpUrl (Gemini CLI reads url as the old SSE transport)');
      const ref = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
      const sub = (v) => v.replace(ref, (r, a, b) => ((a ?? b) in env ? env[a ?? b] : r));
      const headers = {};
      for (const [k, v] of Object.entries(e.headers ?? {})) headers[k] = sub(v);
      return { url: sub(e.httpUrl), headers };
    }
    case 'vscode': {
      const e = doc.servers?.goplsmcp;
      if (e?.type !== 'http') throw new Error(`type ${e?.type}, want http`);
      const inputs = new Map((doc.inputs ?? []).map((i) => [i.id, i]));
      const ref = /\$\{input:([^}]+)\}/g;
      const sub = (v) =>
        v.replace(ref, (r, id) => {
          const input = inputs.get(id);
          if (input?.type !== 'promptString') return r;
          if (input.password !== true) throw new Error(`input ${id} would show the token as it is typed`);
          return typed;
        });
      const headers = {};
      for (const [k, v] of Object.entries(e.headers ?? {})) headers[k] = sub(v);
      return { url: sub(e.url), headers };
    }
  }
  throw new Error(`no reader for client ${client}`);
}

// startServer runs goplsmcp --http with a token file on a free port and
// resolves to its endpoint, read from its log.
function startServer(root, tokenFile) {
  const child = spawn(server, ['--root', root, '--gopls', resolve(opts.gopls), '--http', '127.0.0.1:0', '--token-file', tokenFile], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
  const logs = [];
  const endpoint = new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error('no URL in the log within 30 s')), 30000);
    createInterface({ input: child.stderr }).on('line', (line) => {
      logs.push(line);
      const m = line.match(/msg="serving MCP over HTTP".* url=(\S+)/);
      if (m) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
    child.on('exit', () => rej(new Error('goplsmcp exited before serving')));
  });
  return { child, exited, logs, endpoint };
}

const start = Date.now();
const root = realpathSync(mkdtempSync(join(tmpdir(), 'goplsmcp-config-http-')));
const secrets = realpathSync(mkdtempSync(join(tmpdir(), 'goplsmcp-config-http-token-')));
cpSync(opts.fixture, root, { recursive: true });
const token = `interop-${Math.random().toString(36).slice(2)}-${Date.now()}`;
const tokenFile = join(secrets, 'token');
writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
const srv = startServer(root, tokenFile);
try {
  const url = await srv.endpoint;
  for (const name of ['claude', 'cursor', 'vscode', 'codex', 'gemini']) {
    const where = `config ${name} --url`;
    let conn;
    try {
      const snippet = execFileSync(server, ['config', name, '--url', url], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (snippet.includes(token)) throw new Error('the snippet holds the token');
      conn = connection(name, snippet, { GOPLSMCP_TOKEN: token }, token);
    } catch (err) {
      fail(where, 'reading the snippet', err.message);
      continue;
    }
    const transport = new StreamableHTTPClientTransport(new URL(conn.url), { requestInit: { headers: conn.headers } });
    const client = new Client({ name: `goplsmcp-config-http-${name}`, version: '0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      const res = await client.callTool({ name: 'go_workspace', arguments: {} });
      const text = res.content?.find((c) => c.type === 'text')?.text ?? '';
      if (res.isError || !text.startsWith(`root: ${root}\n`)) fail(where, 'go_workspace', text.slice(0, 200));
      console.log(`  ${where}: ${conn.url} with ${Object.keys(conn.headers).join(', ')}: ${tools.length} tools; ${text.split('\n')[0]}`);
      await transport.terminateSession();
    } catch (err) {
      fail(where, 'session', err.stack);
    } finally {
      await client.close();
    }
  }
  // The headers are what lets a client in.
  const bare = new Client({ name: 'goplsmcp-config-http-bare', version: '0' });
  try {
    await bare.connect(new StreamableHTTPClientTransport(new URL(url)));
    fail('no headers', 'connected without the token');
  } catch (err) {
    if (!/401|Unauthorized/.test(String(err))) fail('no headers', 'refused, but not with 401', String(err));
  } finally {
    await bare.close();
  }
} catch (err) {
  fail('server', 'start', err.stack);
  console.error(srv.logs.join('\n'));
} finally {
  srv.child.kill('SIGTERM');
  const { code, signal } = await srv.exited;
  if (code !== 0) fail('server', `goplsmcp exited with ${code ?? signal} after SIGTERM`);
  rmSync(root, { recursive: true, force: true });
  rmSync(secrets, { recursive: true, force: true });
}
if (failures > 0) {
  console.error(`config-http: ${failures} failure(s) with @modelcontextprotocol/sdk ${sdkVersion}`);
  process.exit(1);
}
console.log(`config-http: each client's HTTP snippet connected with the token as it says, with @modelcontextprotocol/sdk ${sdkVersion} (${Date.now() - start} ms)`);
