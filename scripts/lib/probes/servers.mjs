// The servers the probe set is pointed at, started on loopback with their defaults:
//   ts-stdio, ts-http  the TypeScript media server (packages/filesystem-media-server), on Node or Bun
//   py-stdio, py-http  python/tests/servers/probe_server.py (an MCPServer with read_media_file, get_file_info
//                      and echo on mcp_msgpack's stdio_server, or streamable_http_app under uvicorn)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../../', import.meta.url).pathname;
export const SERVERS = ['ts-stdio', 'ts-http', 'py-stdio', 'py-http'];
const TS_CLI = join(root, 'packages/filesystem-media-server/dist/esm/cli.js');
const PY_SERVER = join(root, 'python/tests/servers/probe_server.py');
const TS_CONFIGURED = join(root, 'scripts/lib/probes/ts-http-configured.mjs');
const LISTEN_WAIT_MS = 30_000;

/** The Python to run: MCP_MSGPACK_PYTHON, else the venv scripts/test-python.sh makes. */
export function pythonExecutable() {
  return process.env.MCP_MSGPACK_PYTHON || join(root, '.cache/py-venv/bin/python');
}

/** A directory holding the file the media cases read (probe.png: a PNG signature, then 3,000 bytes of pattern). */
export function makeServedDirectory() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-probes-')));
  const bytes = Buffer.alloc(3008);
  Buffer.from('89504e470d0a1a0a', 'hex').copy(bytes);
  for (let i = 8; i < bytes.length; i++) bytes[i] = (i * 7 + 3) & 0xff;
  writeFileSync(join(dir, 'probe.png'), bytes);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The command of a stdio server: { command, args }. `runtime` runs the TS server (default: this process's). */
export function stdioCommand(name, dir, runtime = process.execPath) {
  if (name === 'ts-stdio') return { command: runtime, args: [TS_CLI, dir] };
  if (name === 'py-stdio') return { command: pythonExecutable(), args: [PY_SERVER, 'stdio', dir], env: { PYTHONUNBUFFERED: '1' } };
  throw new Error(`${name} is no stdio server`);
}

/**
 * Starts an HTTP server on a free port; resolves with { url, stop } once it printed its URL. `options` (a
 * configured server of http.json): `bind` (default 127.0.0.1; the URL then names 127.0.0.1, where the probes
 * arrive), `initializationDeadlineMs` (the deadline for notifications/initialized), `hostCheck: false` (DNS-rebinding
 * protection off for every request); the TS CLI has no option for the last two, so ts-http-configured.mjs builds
 * the same server with them.
 */
export function startHttpServer(name, dir, runtime = process.execPath, options = {}) {
  const bind = options.bind ?? '127.0.0.1';
  const deadline = options.initializationDeadlineMs;
  const noHostCheck = options.hostCheck === false ? ['--no-host-check'] : [];
  let command;
  let args;
  if (name === 'ts-http' && (deadline !== undefined || noHostCheck.length > 0)) {
    [command, args] = [runtime, [TS_CONFIGURED, `${bind}:0`, dir, ...(deadline === undefined ? [] : ['--session-init-timeout-ms', String(deadline)]), ...noHostCheck]];
  } else if (name === 'ts-http') [command, args] = [runtime, [TS_CLI, '--http', `${bind}:0`, dir]];
  else if (name === 'py-http') {
    const extra = [...(options.bind ? ['--bind', bind] : []), ...(deadline === undefined ? [] : ['--initialization-deadline', String(deadline / 1000)]), ...noHostCheck];
    [command, args] = [pythonExecutable(), [PY_SERVER, 'http', dir, ...extra]];
  } else throw new Error(`${name} is no HTTP server`);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    if (stderr.length < 4000) stderr += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(`no URL within ${LISTEN_WAIT_MS} ms`), LISTEN_WAIT_MS);
    const fail = (why) => {
      clearTimeout(timer);
      stop().then(() => reject(new Error(`${name}: ${why}; stderr: ${stderr}`)));
    };
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      const url = new URL(out.split('\n')[0].trim());
      // Bound to every address: the probes arrive on loopback, where the Host and Origin checks must hold.
      if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1';
      resolve({ url, stop, stderr: () => stderr });
    });
    child.once('error', (error) => fail(String(error)));
    child.once('exit', (code) => fail(`exited (${code}) before listening`));
  });
}

/** Whether a server can be started here (its build or its Python exists). */
export function available(name) {
  if (name.startsWith('ts-')) return existsSync(TS_CLI) ? null : `${TS_CLI} is not built (npm run build)`;
  return existsSync(pythonExecutable()) ? null : `no Python at ${pythonExecutable()} (bash scripts/test-python.sh makes the venv, or set MCP_MSGPACK_PYTHON)`;
}
