// Drives goplsmcp with the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package-lock.json), over stdio and
// over Streamable HTTP with a bearer token; and once through each client
// configuration `goplsmcp config CLIENT` prints. On a copy of the example
// module, each run lists the tools first (the client validates each
// structuredContent against its tool's outputSchema only once it has seen
// the list), calls every tool, reads every resource, gets every prompt,
// completes a prompt argument and sets the log level. Any error, tool
// error or schema violation fails the run with exit status 1.
//
// Usage: node interop.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const { values: opts } = parseArgs({
  options: {
    server: { type: 'string' },
    gopls: { type: 'string' },
    fixture: { type: 'string' },
  },
});
for (const k of ['server', 'gopls', 'fixture']) {
  if (!opts[k]) {
    console.error(`interop: --${k} is required`);
    process.exit(2);
  }
}
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;
const server = resolve(opts.server);
const gopls = resolve(opts.gopls);

// The arguments of each tool's call on testdata/example. Every tool the
// server lists must have an entry: a new tool without one fails the run.
// Positions are 0-based; main.go line 12 is
// "\tfmt.Println(report.Summary(list))".
const calls = {
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
  go_close: { file: 'main.go' },
};
// More calls, for the cases the table's one call per tool leaves out.
const extraCalls = [
  ['go_diagnostics', {}],
  ['go_diagnostics', { file: 'main.go', text: 'package main\n\nfunc main() { var x int = "no" }\n' }],
  ['go_definition', { file: 'main.go', symbol: 'report.Largest', kind: 'type' }],
  ['go_code_actions', { file: 'broken/broken.go', line: 7, character: 9 }],
];

// wrongTypes returns an object whose every member declared by schema has
// a value of the wrong type: a schema that checks anything rejects it.
// (Output schemas allow undeclared members, such as debug.)
function wrongTypes(schema) {
  const value = {};
  for (const [key, member] of Object.entries(schema.properties ?? {})) {
    const types = [member.type ?? []].flat();
    value[key] = types.includes('string') ? 0 : 'x';
  }
  return value;
}

let failures = 0;
function fail(transport, what, detail) {
  failures++;
  console.error(`FAIL ${transport}: ${what}${detail ? ': ' + detail : ''}`);
}

// exercise runs the whole script against one connected client.
async function exercise(name, client) {
  const version = client.getServerVersion();
  if (!version?.name) fail(name, 'serverInfo has no name');

  const { tools } = await client.listTools();
  const listed = tools.map((t) => t.name);
  for (const t of tools) {
    if (!t.outputSchema) fail(name, `${t.name} has no outputSchema`);
    // listTools has compiled each outputSchema: every call below is
    // validated against it.
    const validate = client.getToolOutputValidator(t.name);
    if (!validate) {
      fail(name, `the client compiled no validator for ${t.name}'s outputSchema`);
    } else if (validate(wrongTypes(t.outputSchema)).valid) {
      fail(name, `${t.name}'s outputSchema accepts anything`);
    }
    if (!(t.name in calls)) fail(name, `${t.name} is listed but interop.mjs has no call for it; add one to the table`);
  }
  for (const t of Object.keys(calls)) {
    if (!listed.includes(t)) fail(name, `${t} is not listed`);
  }

  const todo = [...listed.filter((t) => t in calls).map((t) => [t, calls[t]]), ...extraCalls];
  for (const [tool, args] of todo) {
    const start = Date.now();
    let res;
    try {
      // The client checks structuredContent against the outputSchema
      // and throws if it does not validate.
      res = await client.callTool({ name: tool, arguments: args });
    } catch (err) {
      fail(name, `${tool} ${JSON.stringify(args)}`, err.message);
      continue;
    }
    const text = res.content?.find((c) => c.type === 'text')?.text ?? '';
    if (res.isError) {
      fail(name, `${tool} ${JSON.stringify(args)} answered a tool error`, text);
    } else if (!res.structuredContent) {
      fail(name, `${tool} has no structuredContent`);
    } else if (!text) {
      fail(name, `${tool} has no text block`);
    }
    console.log(`  ${name} ${tool} ok (${Date.now() - start} ms): ${text.split('\n')[0].slice(0, 70)}`);
  }

  const { resources } = await client.listResources();
  if (resources.length === 0) fail(name, 'no resources listed');
  for (const r of resources) {
    const { contents } = await client.readResource({ uri: r.uri });
    if (contents.length !== 1 || contents[0].mimeType !== 'application/json') {
      fail(name, `resource ${r.uri}`, JSON.stringify(contents).slice(0, 200));
      continue;
    }
    try {
      JSON.parse(contents[0].text);
    } catch (err) {
      fail(name, `resource ${r.uri} is not JSON`, err.message);
    }
  }
  console.log(`  ${name} read ${resources.length} resources`);

  const { prompts } = await client.listPrompts();
  if (prompts.length === 0) fail(name, 'no prompts listed');
  for (const p of prompts) {
    const { messages } = await client.getPrompt({ name: p.name, arguments: { file: 'main.go', symbol: 'main' } });
    if (!messages?.length) fail(name, `prompt ${p.name} has no messages`);
  }
  const done = await client.complete({
    ref: { type: 'ref/prompt', name: prompts[0].name },
    argument: { name: 'file', value: 'sha' },
  });
  if (!done.completion.values.includes('shapes/shapes.go')) {
    fail(name, 'completing a file argument', JSON.stringify(done.completion.values));
  }
  console.log(`  ${name} got ${prompts.length} prompts and a completion`);
  await client.setLoggingLevel('warning');
  await client.ping();
}

// fixture copies the example module to a fresh directory: no run writes
// to the repository.
function fixture() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'goplsmcp-interop-')));
  cpSync(opts.fixture, dir, { recursive: true });
  return dir;
}

function newClient() {
  return new Client({ name: 'goplsmcp-interop', version: '0' });
}

async function overStdio() {
  const root = fixture();
  const transport = new StdioClientTransport({
    command: server,
    args: ['--root', root, '--gopls', gopls],
    stderr: 'pipe',
  });
  const logs = [];
  transport.stderr?.on('data', (d) => logs.push(d.toString()));
  const client = newClient();
  try {
    await client.connect(transport);
    await exercise('stdio', client);
  } catch (err) {
    fail('stdio', 'session', err.stack);
    console.error(logs.join(''));
  } finally {
    await client.close();
    rmSync(root, { recursive: true, force: true });
  }
}

// overHTTP runs goplsmcp --http on a free loopback port, reads the URL
// and the generated token from its stderr, and connects with the token.
async function overHTTP() {
  const root = fixture();
  const child = spawn(server, ['--root', root, '--gopls', gopls, '--http', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
  const logs = [];
  const lines = createInterface({ input: child.stderr });
  const endpoint = new Promise((res, rej) => {
    let url;
    const timer = setTimeout(() => rej(new Error('no URL and token on stderr within 30 s')), 30000);
    lines.on('line', (line) => {
      logs.push(line);
      const u = line.match(/serving MCP at (http:\/\/\S+);/);
      if (u) url = u[1];
      const t = line.match(/Authorization: Bearer (\S+)/);
      if (t && url) {
        clearTimeout(timer);
        res({ url, token: t[1] });
      }
    });
    child.on('exit', () => rej(new Error('goplsmcp exited before serving')));
  });
  const client = newClient();
  let transport;
  try {
    const { url, token } = await endpoint;
    transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    if (!transport.sessionId) fail('http', 'no Mcp-Session-Id after initialize');
    await exercise('http', client);
    await transport.terminateSession();
  } catch (err) {
    fail('http', 'session', err.stack);
    console.error(logs.join('\n'));
  } finally {
    await client.close();
    child.kill('SIGTERM');
    const { code, signal } = await exited;
    if (code !== 0) fail('http', `goplsmcp exited with ${code ?? signal} after SIGTERM`);
    rmSync(root, { recursive: true, force: true });
  }
}

// serverEntry reads the goplsmcp server out of the snippet printed by
// `goplsmcp config CLIENT`: JSON for most clients, TOML for Codex.
function serverEntry(client, snippet) {
  if (client === 'codex') {
    const field = (key) => {
      const m = snippet.match(new RegExp(`^${key} = (.*)$`, 'm'));
      return m ? JSON.parse(m[1]) : undefined;
    };
    if (!/^\[mcp_servers\.goplsmcp\]$/m.test(snippet)) throw new Error('no [mcp_servers.goplsmcp] table');
    return { command: field('command'), args: field('args') ?? [], env: undefined };
  }
  const doc = JSON.parse(snippet);
  const entry = (doc.mcpServers ?? doc.servers)?.goplsmcp;
  if (!entry) throw new Error('no goplsmcp entry under mcpServers or servers');
  if (entry.type !== undefined && entry.type !== 'stdio') throw new Error(`type ${entry.type}, want stdio`);
  return entry;
}

// overConfigs starts goplsmcp exactly as each client's configuration
// says, from the project directory as the client would, and holds a short
// session with it: the snippet must launch a working server on that
// project, finding the gopls installed beside goplsmcp.
async function overConfigs() {
  const root = fixture();
  try {
    for (const name of ['claude', 'cursor', 'vscode', 'codex', 'gemini']) {
      const where = `config ${name}`;
      let entry;
      try {
        const snippet = execFileSync(server, ['config', name], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        entry = serverEntry(name, snippet);
      } catch (err) {
        fail(where, 'reading the snippet', err.message);
        continue;
      }
      const transport = new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: entry.env ? { ...process.env, ...entry.env } : undefined,
        cwd: root,
        stderr: 'pipe',
      });
      const logs = [];
      transport.stderr?.on('data', (d) => logs.push(d.toString()));
      const client = newClient();
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        const res = await client.callTool({ name: 'go_workspace', arguments: {} });
        const text = res.content?.find((c) => c.type === 'text')?.text ?? '';
        if (res.isError || !text.startsWith(`root: ${root}\n`)) {
          fail(where, 'go_workspace', text.slice(0, 200));
        }
        console.log(`  ${where}: ${entry.command} ${entry.args.join(' ')}: ${tools.length} tools; ${text.split('\n').slice(0, 2).join('; ')}`);
      } catch (err) {
        fail(where, 'session', err.stack);
        console.error(logs.join(''));
      } finally {
        await client.close();
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const start = Date.now();
await overStdio();
await overHTTP();
await overConfigs();
if (failures > 0) {
  console.error(`interop: ${failures} failure(s) with @modelcontextprotocol/sdk ${sdkVersion}`);
  process.exit(1);
}
console.log(`interop: every tool, resource and prompt passed over stdio and HTTP, and each client configuration started a working server, with @modelcontextprotocol/sdk ${sdkVersion} (${Date.now() - start} ms)`);
