// Drives goplsmcp with the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package-lock.json), over stdio and
// over Streamable HTTP with a bearer token; and once through each client
// configuration `goplsmcp config CLIENT` prints. On a copy of the example
// module, each run lists the tools first (the client validates each
// structuredContent against its tool's outputSchema only once it has seen
// the list), calls every tool, reads every resource, gets every prompt,
// completes a prompt argument and sets the log level. Then it calls every
// tool once more with a bad argument: each must answer a tool error
// (isError, our one-sentence message, no structuredContent), never an
// McpError such as the -32602 the client throws when an error's
// structuredContent does not match the output schema. Any error, tool
// error where none is due, or schema violation fails the run with exit
// status 1.
//
// Usage: node interop.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { badCalls, calls, extraCalls, wants } from './calls.mjs';
import { Failures, fixture as copyFixture, options, serveHTTP, shareEnv } from './lib.mjs';

const opts = options();
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;
const { server, gopls } = opts;
// go_vulncheck reads the test vulnerability database beside the fixture,
// as --env GOVULNDB gives it (offline, it needs one).
const vulnEnv = ['--env', 'GOVULNDB=file://' + resolve(opts.fixture, '../vulncheck/vulndb')];

// More bad calls: gopls itself refusing, a tool that does not exist, and
// an error with debug: true (the trace follows the message in the text).
const extraBadCalls = [
  ['go_rename_symbol', { text: 'package p\n\nfunc f() {\n\tx := 1\n\ty := 2\n\t_, _ = x, y\n}\n', line: 4, column: 2, new_name: 'y' },
    /^gopls: .*conflicts with var in same block/],
  ['go_nope', {}, /^unknown tool$/],
  ['go_describe', { file: 'main.go', symbol: 'Nope', debug: true }, /^symbol "Nope" is not declared .*\ndebug: [0-9.]+ ms, [0-9]+ requests?\n  workspace\/symbol /s],
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

const failures = new Failures();
const fail = (...a) => failures.fail(...a);

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
    if (!(t.name in calls)) fail(name, `${t.name} is listed but bridge's catalogue has no good call for it`);
    if (!(t.name in badCalls)) fail(name, `${t.name} is listed but bridge's catalogue has no bad call for it`);
  }
  for (const t of [...Object.keys(calls), ...Object.keys(badCalls)]) {
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
    } else if (args === calls[tool] && !text.includes(wants[tool])) {
      fail(name, `${tool} ${JSON.stringify(args)} answered without ${JSON.stringify(wants[tool])}`, text.slice(0, 200));
    }
    console.log(`  ${name} ${tool} ok (${Date.now() - start} ms): ${text.split('\n')[0].slice(0, 70)}`);
  }

  // Bad calls: a tool error reaches the client as our sentence. The
  // client throws an McpError when it finds fault with the result (such
  // as a structuredContent that does not match the output schema); that
  // is a failure too.
  const bad = [...listed.filter((t) => t in badCalls).map((t) => [t, ...badCalls[t]]), ...extraBadCalls];
  for (const [tool, args, want] of bad) {
    const where = `${tool} ${JSON.stringify(args)}`;
    let res;
    try {
      res = await client.callTool({ name: tool, arguments: args });
    } catch (err) {
      fail(name, `${where} threw instead of answering a tool error`, err.message);
      continue;
    }
    const texts = (res.content ?? []).filter((c) => c.type === 'text');
    const text = texts[0]?.text ?? '';
    if (res.isError !== true) {
      fail(name, `${where} did not answer a tool error`, text.slice(0, 200));
    } else if (res.structuredContent !== undefined) {
      fail(name, `${where}: a tool error with structuredContent`, JSON.stringify(res.structuredContent).slice(0, 200));
    } else if (res.content.length !== 1 || texts.length !== 1) {
      fail(name, `${where}: a tool error is one text block`, JSON.stringify(res.content).slice(0, 200));
    } else if (!want.test(text)) {
      fail(name, `${where}: message ${JSON.stringify(text)}`, `want ${want}`);
    } else if (!want.flags.includes('s') && text.includes('\n')) {
      fail(name, `${where}: the message is more than one line`, JSON.stringify(text));
    }
  }
  console.log(`  ${name} ${bad.length} bad calls answered tool errors with their messages`);

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

function fixture() {
  return copyFixture(opts.fixture);
}

function newClient() {
  return new Client({ name: 'goplsmcp-interop', version: '0' });
}

async function overStdio() {
  const root = fixture();
  const transport = new StdioClientTransport({
    command: server,
    args: ['--root', root, '--gopls', gopls, ...vulnEnv],
    env: { ...getDefaultEnvironment(), ...shareEnv },
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
  const client = newClient();
  let web;
  try {
    web = await serveHTTP(server, gopls, root, vulnEnv);
    const transport = new StreamableHTTPClientTransport(new URL(web.url), {
      requestInit: { headers: { Authorization: `Bearer ${web.token}` } },
    });
    await client.connect(transport);
    if (!transport.sessionId) fail('http', 'no Mcp-Session-Id after initialize');
    await exercise('http', client);
    await transport.terminateSession();
  } catch (err) {
    fail('http', 'session', err.stack);
    if (web) console.error(web.logs.join('\n'));
  } finally {
    await client.close();
    if (web) {
      const { code, signal } = await web.stop();
      if (code !== 0) fail('http', `goplsmcp exited with ${code ?? signal} after SIGTERM`);
    }
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
        env: { ...(entry.env ? { ...process.env, ...entry.env } : getDefaultEnvironment()), ...shareEnv },
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
if (failures.count > 0) {
  console.error(`interop: ${failures.count} failure(s) with @modelcontextprotocol/sdk ${sdkVersion}`);
  process.exit(1);
}
console.log(`interop: every tool, resource and prompt passed over stdio and HTTP, every bad call answered its tool error, and each client configuration started a working server, with @modelcontextprotocol/sdk ${sdkVersion} (${Date.now() - start} ms)`);
