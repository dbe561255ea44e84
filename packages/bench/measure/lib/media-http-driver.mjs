// Starts packages/bench/measure/lib/media-http-child.mjs (the media server over HTTP in a process of its own) and talks to
// it: its URL, its memory on demand, and a stop that ends only that process.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const CHILD = new URL('./media-http-child.mjs', import.meta.url).pathname;
const START_TIMEOUT_MS = 20_000;
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * A temp directory with what the load reads: small and large text, images of 64 KiB, 1 MiB and 5 MiB
 * (bytes that do not compress), a tree of 200 files; `cleanup()` removes it.
 */
export function makeMediaLayout() {
  const root = mkdtempSync(join(tmpdir(), 'rss-media-'));
  writeFileSync(join(root, 'small.txt'), 'hello media server\n'.repeat(200));
  writeFileSync(join(root, 'large.txt'), 'a line of a large text file, with some words in it\n'.repeat(20_000));
  for (const [name, bytes] of [
    ['icon.png', 64 * 1024],
    ['photo.png', 1024 * 1024],
    ['poster.png', 5 * 1024 * 1024],
  ])
    writeFileSync(join(root, name), randomBytes(bytes));
  for (let d = 0; d < 10; d++) {
    mkdirSync(join(root, 'tree', `d${d}`), { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(root, 'tree', `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`);
  }
  mkdirSync(join(root, 'scratch'));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * The child on `runtime` ('node' or 'bun'), serving `dir`; `handlerOptions` go to McpHttpHandler (JSON),
 * `env` is added to the child's environment (MALLOC_ARENA_MAX, say), `idleCollection` is the child's option.
 */
export async function startMediaChild({ runtime = 'node', dir, handlerOptions = {}, env = {}, idleCollection }) {
  const command = runtime === 'bun' ? bunBinary() : process.execPath;
  const args = runtime === 'bun' ? [CHILD, dir] : ['--expose-gc', CHILD, dir];
  args.push('--handler-options', JSON.stringify(handlerOptions));
  if (idleCollection) args.push('--idle-collection', idleCollection);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = (ms) => {
    let timer;
    const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the media child did not answer in ${ms} ms`)), ms)));
    return Promise.race([lines.next(), timeout])
      .finally(() => clearTimeout(timer))
      .then((line) => {
        if (line.done) throw new Error('the media child exited');
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
  return {
    url: new URL(hello.url),
    pid: child.pid,
    runtime: hello.runtime,
    stats: () => ask('stats'),
    gc: () => ask('gc'),
    resetHwm: () => ask('reset-hwm'),
    maps: () => ask('maps'),
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

/** The bun of the repository's devDependencies (the `bun` npm package), as scripts/run-tests.mjs runs it. */
export function bunBinary() {
  return join(createRequire(import.meta.url).resolve('bun/package.json'), '..', 'bin', 'bun.exe');
}

export const MiB = 2 ** 20;
export const mib = (bytes) => (bytes / MiB).toFixed(1);

/** The value after `--name` on a command line, or the fallback. */
export function optionOf(argv, name, fallback) {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : fallback;
}
