// Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in package-lock.json): its active server scenarios, against
// goplsmcp serving Streamable HTTP on a copy of the example module. The
// scenarios that need the suite's own test tools, resources or prompts are
// expected to fail and listed, with why, in conformance-baseline.yml; the
// suite fails the run on any other failure or warning, and on a listed
// scenario that passes.
//
// The suite sends no Authorization header, and goplsmcp requires its
// bearer token, so the suite talks to a small loopback proxy that adds the
// token and passes everything else through unchanged (Host and Origin
// included, which the DNS-rebinding scenario checks). Needs Node.js 22.
//
// Usage: node conformance.mjs --server bin/goplsmcp --gopls bin/gopls --fixture testdata/example

import { readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

import { fixture, needNode, options, run, serveHTTP, tempDir } from './lib.mjs';

needNode(22, 0, 'the MCP conformance suite');
const opts = options();
const here = new URL('.', import.meta.url).pathname;
const pkg = join(here, 'node_modules/@modelcontextprotocol/conformance');
const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;

// tokenProxy listens on a free loopback port and forwards every request
// to target with the bearer token added.
function tokenProxy(target, token) {
  const to = new URL(target);
  const srv = http.createServer((req, res) => {
    const up = http.request({
      host: to.hostname, port: to.port, path: req.url, method: req.method,
      headers: { ...req.headers, authorization: `Bearer ${token}` },
    }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    up.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(err));
    });
    // A client that goes away (the end of an event stream) ends the
    // upstream request too.
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  return new Promise((res) => srv.listen(0, '127.0.0.1', () => res(srv)));
}

// summary reads the suite's results: for each scenario, its checks by
// status.
function summary(dir) {
  const out = [];
  for (const d of readdirSync(dir).sort()) {
    let checks;
    try {
      checks = JSON.parse(readFileSync(join(dir, d, 'checks.json'), 'utf8'));
    } catch {
      continue;
    }
    const name = d.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    out.push({ name, ok: bad.length === 0, detail: bad.map((c) => `${c.id}: ${c.errorMessage ?? c.description}`).join('; ') });
  }
  return out;
}

const start = Date.now();
const root = fixture(opts.fixture);
const results = tempDir('goplsmcp-conformance-');
let web;
let proxy;
let code = 1;
try {
  web = await serveHTTP(opts.server, opts.gopls, root);
  proxy = await tokenProxy(web.url, web.token);
  const url = `http://127.0.0.1:${proxy.address().port}/mcp`;
  const r = await run(process.execPath, [join(pkg, 'dist/index.js'), 'server', '--url', url,
    '--expected-failures', join(here, 'conformance-baseline.yml'), '-o', results],
  { cwd: here, env: { PATH: process.env.PATH, HOME: results, NO_COLOR: '1' }, timeoutMs: 180000 });
  code = r.code ?? 1;
  const scenarios = summary(results);
  const baseline = readFileSync(join(here, 'conformance-baseline.yml'), 'utf8');
  for (const s of scenarios) {
    const expected = new RegExp(`^  - ${s.name}$`, 'm').test(baseline);
    const mark = s.ok ? 'pass' : expected ? 'expected failure (needs the suite\'s test server)' : 'FAIL';
    console.log(`  conformance ${s.name}: ${mark}${!s.ok && !expected ? ': ' + s.detail : ''}`);
  }
  if (code !== 0) {
    console.error(`FAIL conformance: the suite exited ${r.killed ? 'killed after 180 s' : code}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-2000)}`);
    console.error(web.logs.slice(-40).join('\n'));
  } else {
    const passed = scenarios.filter((s) => s.ok).length;
    console.log(`conformance: @modelcontextprotocol/conformance ${version}: ${passed} server scenarios pass, ` +
      `${scenarios.length - passed} fail as the baseline expects (${Date.now() - start} ms)`);
  }
} catch (err) {
  console.error(`FAIL conformance: ${err.stack}`);
  code = 1;
} finally {
  proxy?.closeAllConnections();
  proxy?.close();
  if (web) {
    const { code: exit, signal } = await web.stop();
    if (exit !== 0) {
      console.error(`FAIL conformance: goplsmcp exited with ${exit ?? signal} after SIGTERM`);
      code = 1;
    }
  }
  rmSync(root, { recursive: true, force: true });
  rmSync(results, { recursive: true, force: true });
}
process.exit(code);
