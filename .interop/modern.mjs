// Drives goplsmcp with the MCP TypeScript SDK v2 client
// (@modelcontextprotocol/client, pinned in package-lock.json), which speaks
// the stateless 2026-07-28 revision: pinned to it, and in auto mode (a
// server/discover probe, which must find goplsmcp modern), over stdio and
// over Streamable HTTP with a bearer token. On a copy of the example
// module each run checks it is modern, calls every tool with a good
// argument (the client validates each structuredContent against the
// tool's outputSchema and throws if it does not match), reads every
// resource and gets every prompt. Any error fails the run with exit
// status 1.
//
// Usage: node modern.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { rmSync } from 'node:fs';
import { resolve } from 'node:path';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { calls, extraCalls } from './calls.mjs';
import { Failures, fixture as copyFixture, options, serveHTTP, shareEnv } from './lib.mjs';

const opts = options();
const { server, gopls } = opts;
const vulnEnv = ['--env', 'GOVULNDB=file://' + resolve(opts.fixture, '../vulncheck/vulndb')];
const modernVersion = '2026-07-28';
const modes = { pinned: { mode: { pin: modernVersion } }, auto: { mode: 'auto' } };

const failures = new Failures();
const fail = (...a) => failures.fail(...a);

// exercise runs the whole script against one connected client.
async function exercise(name, client) {
  if (client.getProtocolEra() !== 'modern' || client.getNegotiatedProtocolVersion() !== modernVersion) {
    fail(name, `negotiated ${client.getProtocolEra()} ${client.getNegotiatedProtocolVersion()}, want modern ${modernVersion}`);
  }
  const discovered = client.getDiscoverResult();
  if (!discovered?.supportedVersions?.includes(modernVersion)) {
    fail(name, 'server/discover does not offer ' + modernVersion, JSON.stringify(discovered?.supportedVersions));
  }
  if (!client.getServerVersion()?.name) fail(name, 'no serverInfo');

  const { tools } = await client.listTools();
  const listed = tools.map((t) => t.name);
  for (const t of tools) {
    if (!t.outputSchema) fail(name, `${t.name} has no outputSchema`);
    if (!(t.name in calls)) fail(name, `${t.name} is listed but calls.mjs has no call for it; add one`);
  }
  for (const t of Object.keys(calls)) {
    if (!listed.includes(t)) fail(name, `${t} is not listed`);
  }
  const again = (await client.listTools()).tools.map((t) => t.name);
  if (JSON.stringify(again) !== JSON.stringify(listed)) fail(name, 'tools/list changed order between two calls');

  const todo = [...listed.filter((t) => t in calls).map((t) => [t, calls[t]]), ...extraCalls];
  for (const [tool, args] of todo) {
    const start = Date.now();
    let res;
    try {
      res = await client.callTool({ name: tool, arguments: args });
    } catch (err) {
      fail(name, `${tool} ${JSON.stringify(args)}`, err.message);
      continue;
    }
    const text = res.content?.find((c) => c.type === 'text')?.text ?? '';
    if (res.isError) {
      fail(name, `${tool} ${JSON.stringify(args)} answered a tool error`, text);
    } else if (res.structuredContent === undefined) {
      fail(name, `${tool} has no structuredContent`);
    } else if (!text) {
      fail(name, `${tool} has no text block`);
    }
    console.log(`  ${name} ${tool} ok (${Date.now() - start} ms): ${text.split('\n')[0].slice(0, 70)}`);
  }

  await handleRoundTrip(name, client);

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
  const { prompts } = await client.listPrompts();
  if (prompts.length === 0) fail(name, 'no prompts listed');
  for (const p of prompts) {
    const { messages } = await client.getPrompt({ name: p.name, arguments: { file: 'main.go', symbol: 'main' } });
    if (!messages?.length) fail(name, `prompt ${p.name} has no messages`);
  }
  console.log(`  ${name} read ${resources.length} resources and got ${prompts.length} prompts`);
}

// handleRoundTrip gives unsaved text once and sees it again only by its
// handle, which go_close then forgets.
async function handleRoundTrip(name, client) {
  const importerError = 'undefined: report.Summary';
  const text = (res) => res.content?.find((c) => c.type === 'text')?.text ?? '';
  const given = await client.callTool({
    name: 'go_diagnostics',
    arguments: { file: 'report/report.go', text: 'package report\n\nvar X int = "s"\n' },
  });
  const handle = given.structuredContent?.handle;
  if (!handle || !text(given).includes(`handle: ${handle} (`)) {
    fail(name, 'unsaved text was answered without a handle', text(given));
    return;
  }
  const seen = await client.callTool({ name: 'go_diagnostics', arguments: { file: 'main.go', handle } });
  if (!text(seen).includes(importerError)) fail(name, 'a call with the handle does not see its unsaved text', text(seen));
  const unseen = await client.callTool({ name: 'go_diagnostics', arguments: { file: 'main.go' } });
  if (text(unseen).includes(importerError)) fail(name, 'a call without the handle sees its unsaved text', text(unseen));
  const closed = await client.callTool({ name: 'go_close', arguments: { handle } });
  if (closed.isError) fail(name, 'go_close of the handle', text(closed));
  const gone = await client.callTool({ name: 'go_diagnostics', arguments: { file: 'main.go', handle } });
  if (!gone.isError) fail(name, 'a forgotten handle was not refused', text(gone));
  console.log(`  ${name} handle round trip ok: ${handle}`);
}

function newClient(mode) {
  return new Client({ name: 'goplsmcp-interop-modern', version: '0' }, { versionNegotiation: modes[mode] });
}

async function overStdio(mode) {
  const name = `stdio ${mode}`;
  const root = copyFixture(opts.fixture);
  const transport = new StdioClientTransport({
    command: server,
    args: ['--root', root, '--gopls', gopls, ...vulnEnv],
    env: { ...getDefaultEnvironment(), ...shareEnv },
    stderr: 'pipe',
  });
  const logs = [];
  transport.stderr?.on('data', (d) => logs.push(d.toString()));
  const client = newClient(mode);
  try {
    await client.connect(transport);
    await exercise(name, client);
  } catch (err) {
    fail(name, 'session', err.stack);
    console.error(logs.join(''));
  } finally {
    await client.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function overHTTP(mode) {
  const name = `http ${mode}`;
  const root = copyFixture(opts.fixture);
  const client = newClient(mode);
  let web;
  try {
    web = await serveHTTP(server, gopls, root, vulnEnv);
    const transport = new StreamableHTTPClientTransport(new URL(web.url), {
      requestInit: { headers: { Authorization: `Bearer ${web.token}` } },
    });
    await client.connect(transport);
    if (transport.sessionId) fail(name, `a modern connection got Mcp-Session-Id ${transport.sessionId}`);
    await exercise(name, client);
  } catch (err) {
    fail(name, 'session', err.stack);
    if (web) console.error(web.logs.join('\n'));
  } finally {
    await client.close();
    if (web) {
      const { code, signal } = await web.stop();
      if (code !== 0) fail(name, `goplsmcp exited with ${code ?? signal} after SIGTERM`);
    }
    rmSync(root, { recursive: true, force: true });
  }
}

for (const mode of Object.keys(modes)) {
  await overStdio(mode);
  await overHTTP(mode);
}
if (failures.count > 0) {
  console.error(`modern: ${failures.count} failures`);
  process.exit(1);
}
console.log('modern: the 2026-07-28 client, pinned and auto, over stdio and HTTP: every tool, resource and prompt ok');
