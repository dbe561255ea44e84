// Local services for the Redis/nginx tests and benchmark: redis-server and nginx from the machine's packages
// (Debian's redis-server and nginx; .ci/run installs them), each on a free loopback port, in a temp dir,
// and stopped by the caller (stop() kills only the process it started).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const START_TIMEOUT_MS = 15_000;

/** The path of `name` on PATH (or in /usr/sbin, where Debian puts nginx), or undefined. */
export function findBinary(name) {
  const found = spawnSync('sh', ['-c', `command -v ${name} || ls /usr/sbin/${name} 2>/dev/null`], { encoding: 'utf8' });
  const path = found.stdout.trim().split('\n')[0];
  return path ? path : undefined;
}

/**
 * Whether the binaries are there; when they are not: under CI (CI=true) an error, else a reason to skip
 * (the caller prints it). .ci/run installs both, so a CI run never skips.
 */
export function missingBinaries(names) {
  const missing = names.filter((name) => !findBinary(name));
  if (missing.length === 0) return undefined;
  const reason = `${missing.join(' and ')} not installed (apt-get install -y ${missing.join(' ')})`;
  if (process.env.CI === 'true') throw new Error(`${reason}: CI must have them (.ci/run installs them)`);
  return reason;
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs `command` until `ready(output so far)` is true; rejects on exit or after START_TIMEOUT_MS. */
export function startProcess(command, args, ready, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    const timer = setTimeout(() => fail(new Error(`${command} did not start in ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      if (output.length > 64 * 1024) output = output.slice(-32 * 1024);
      if (ready(output)) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.off('exit', onExit);
        // Keep draining so a chatty process never blocks on a full pipe.
        child.stdout.resume();
        child.stderr.resume();
        resolve(child);
      }
    };
    const onExit = (code, signal) => fail(new Error(`${command} exited (${code ?? signal}) before it was ready:\n${output}`));
    function fail(error) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.once('exit', onExit);
    child.once('error', fail);
  });
}

/** Ends a child this module started: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stopProcess(child, graceMs = 3_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * redis-server on 127.0.0.1:<free port> (or `port`), nothing persisted, and with `unixSocket` also on a unix
 * socket in a temp dir of its own (mode 700); `args` are added to its command line. Returns { url, unixUrl
 * (`unix:///path`, or undefined), port, process, terminate() (SIGTERM, keeping port and socket path),
 * start() (again, after terminate), pause() (SIGSTOP), resume() (SIGCONT), stop() }.
 */
export async function startRedis({ maxmemory, unixSocket = false, port: fixedPort, args: extra = [], dir: workDir } = {}) {
  const port = fixedPort ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', ...extra];
  if (maxmemory) args.push('--maxmemory', String(maxmemory));
  const dir = unixSocket ? mkdtempSync(join(tmpdir(), 'mcp-redis-')) : undefined;
  if (dir) args.push('--unixsocket', join(dir, 'redis.sock'), '--unixsocketperm', '700');
  const removeDir = () => dir && rmSync(dir, { recursive: true, force: true });
  const spawnRedis = () => startProcess(findBinary('redis-server'), args, (output) => output.includes('Ready to accept connections'), workDir ? { cwd: workDir } : {});
  const redis = {
    url: `redis://127.0.0.1:${port}`,
    unixUrl: dir ? `unix://${join(dir, 'redis.sock')}` : undefined,
    port,
    process: undefined,
    terminate: async () => {
      redis.resume();
      await stopProcess(redis.process);
    },
    start: async () => {
      redis.process = await spawnRedis();
    },
    pause: () => void redis.process?.kill('SIGSTOP'),
    resume: () => void (redis.process?.exitCode === null && redis.process.signalCode === null && redis.process.kill('SIGCONT')),
    stop: async () => {
      await redis.terminate();
      removeDir();
    },
  };
  try {
    await redis.start();
  } catch (error) {
    removeDir();
    throw error;
  }
  return redis;
}

/**
 * nginx in front of `upstreams` (host:port strings) on 127.0.0.1:<free port>, with the config made by
 * `config({ port, upstreams, dir })` (examples/scale/nginx.conf.mjs), its pid, logs and temp files in a
 * directory of its own. Returns { url, port, dir, process, reload() (`nginx -s reload`: new workers, the old
 * ones finish what they serve and close their idle connections), stop() }.
 */
export async function startNginx(config, upstreams) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcp-nginx-'));
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, config({ port, upstreams, dir }));
  const nginx = findBinary('nginx');
  const check = spawnSync(nginx, ['-t', '-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx config refused:\n${check.stderr}`);
  const child = spawn(nginx, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log'), '-g', 'daemon off;'], { stdio: 'ignore' });
  await waitForPort(port, child);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    process: child,
    reload: () => {
      const reload = spawnSync(nginx, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log'), '-s', 'reload'], { encoding: 'utf8', timeout: 10_000 });
      if (reload.status !== 0) throw new Error(`nginx -s reload failed:\n${reload.stderr}`);
    },
    stop: async () => {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port, child) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}) before listening`);
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`nginx did not listen on ${port} in ${START_TIMEOUT_MS} ms`);
}

/**
 * A Redis Cluster on loopback: `masters` masters with one replica each, every node a redis-server on a free
 * port with its cluster config in a temp dir, made one cluster by `redis-cli --cluster create`. Returns
 * { nodes (from startRedis), url (a node's), dir, stop() }.
 */
export async function startRedisCluster({ masters = 3 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-redis-cluster-'));
  const nodes = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * 2; i++) {
      const port = await freePort();
      // The bus port would default to port + 10000, which may be taken or above 65535.
      const bus = await freePort();
      const args = ['--cluster-enabled', 'yes', '--cluster-port', String(bus), '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '1000', '--dir', dir];
      nodes.push(await startRedis({ port, args }));
    }
    const create = spawnSync(findBinary('redis-cli'), ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '1', '--cluster-yes'], {
      encoding: 'utf8',
      timeout: START_TIMEOUT_MS,
    });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
    // Every node agrees the cluster is whole before it is used.
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (const node of nodes) {
      for (;;) {
        const info = spawnSync(findBinary('redis-cli'), ['-p', String(node.port), 'cluster', 'info'], { encoding: 'utf8' });
        if (info.stdout.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error(`cluster not ok on ${node.port}:\n${info.stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, url: nodes[0].url, dir, stop };
}

/** `redis-cli -p port args...`: its output (throws if it fails). */
export function redisCli(port, args) {
  const run = spawnSync(findBinary('redis-cli'), ['-p', String(port), ...args], { encoding: 'utf8', timeout: 10_000 });
  if (run.status !== 0) throw new Error(`redis-cli ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}
