// Starts media-server.mjs (the media server over HTTP in a process of its own) on a folder of files the load
// reads, and reads its memory and CPU from outside with the bench's own readers (/proc): its URL, a GC on
// demand, and a stop that ends only that process.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { readProcessCpuNs, readRss, resetPeakRss } from 'mcp-msgpack-bench';

const CHILD = fileURLToPath(new URL('./media-server.mjs', import.meta.url));
const START_TIMEOUT_MS = 20_000;
const ANSWER_TIMEOUT_MS = 30_000;
export const MiB = 2 ** 20;
export const mib = (bytes) => (bytes / MiB).toFixed(1);

/**
 * A temp folder with what the load reads: small and large text, images of 64 KiB, 1 MiB and 5 MiB (bytes
 * that do not compress), a tree of 200 files, a scratch folder; `cleanup()` removes it.
 */
export function makeMediaLayout() {
  const root = mkdtempSync(join(tmpdir(), 'bench-stress-'));
  writeFileSync(join(root, 'small.txt'), 'hello media server\n'.repeat(200));
  writeFileSync(join(root, 'large.txt'), 'a line of a large text file, with some words in it\n'.repeat(20_000));
  for (const [name, bytes] of [
    ['icon.png', 64 * 1024],
    ['photo.png', MiB],
    ['poster.png', 5 * MiB],
  ])
    writeFileSync(join(root, name), randomBytes(bytes));
  for (let d = 0; d < 10; d++) {
    mkdirSync(join(root, 'tree', `d${d}`), { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(root, 'tree', `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`);
  }
  mkdirSync(join(root, 'scratch'));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** The bun of the repository's devDependencies (the `bun` npm package), as scripts/run-tests.mjs runs it. */
export function bunBinary() {
  return join(createRequire(import.meta.url).resolve('bun/package.json'), '..', 'bin', 'bun.exe');
}

/** The media server on `runtime` ('node' or 'bun') serving `dir`; `handlerOptions` go to McpHttpHandler. */
export async function startMediaServer({ runtime = 'node', dir, handlerOptions = {} }) {
  const command = runtime === 'bun' ? bunBinary() : process.execPath;
  const args = [...(runtime === 'bun' ? [] : ['--expose-gc']), CHILD, dir, '--handler-options', JSON.stringify(handlerOptions)];
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = (ms) => {
    let timer;
    const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the media server did not answer in ${ms} ms`)), ms)));
    return Promise.race([lines.next(), timeout])
      .finally(() => clearTimeout(timer))
      .then((line) => {
        if (line.done) throw new Error('the media server exited');
        return JSON.parse(line.value);
      });
  };
  let hello;
  try {
    hello = await next(START_TIMEOUT_MS);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  // One command at a time: answers come back in order.
  let queue = Promise.resolve();
  const ask = (command) => {
    const answer = queue.then(() => {
      child.stdin.write(`${command}\n`);
      return next(ANSWER_TIMEOUT_MS);
    });
    queue = answer.catch(() => {});
    return answer;
  };
  const pid = child.pid;
  return {
    url: new URL(hello.url),
    pid,
    runtime: hello.runtime,
    /** Its RSS and peak RSS (bytes), CPU (ms, all threads), sessions and open streams. */
    async stats() {
      const tables = await ask('tables');
      return { ...readRss(pid), cpuMs: (readProcessCpuNs(pid) ?? Number.NaN) / 1e6, ...tables };
    },
    /** The same after a full garbage collection. */
    async collected() {
      const tables = await ask('gc');
      return { ...readRss(pid), cpuMs: (readProcessCpuNs(pid) ?? Number.NaN) / 1e6, ...tables };
    },
    resetPeak: () => resetPeakRss(pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end('exit\n');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
