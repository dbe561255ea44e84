// What both bridge measurements (measure-bridge.mjs, host to remote; measure-reverse.mjs, `--serve`) share:
// their options, the folder of files they read, a server started as a child that prints its URL, a process's
// CPU time, a byte-counting proxy for the network leg, the small call, the figures' p50 and ratio, and the
// cleanups that always run.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { median } from 'mcp-msgpack-bench';

export { cpuMs, startUrlPrinter } from './child-server.mjs';

/** The value after `--name` on a command line, or the fallback. */
export function optionOf(argv, name, fallback) {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : fallback;
}
/** The big call's file: a 5 MiB image, read whole by read_media_file. */
export const BIG = 5 * 1024 * 1024;
export const CALL_LIMIT_MS = 60_000;
const require = createRequire(import.meta.url);
/** A package's command: its package.json's bin (the public way to start it). */
function binOf(name) {
  const manifest = require.resolve(`${name}/package.json`);
  const { bin } = require(manifest);
  return join(manifest, '..', typeof bin === 'string' ? bin : Object.values(bin)[0]);
}
export const BRIDGE_BIN = binOf('mcp-msgpack-bridge');
export const MEDIA_CLI = binOf('mcp-filesystem-media-server');
export const OFFICIAL_FILESYSTEM = binOf('@modelcontextprotocol/server-filesystem');

/** A temporary folder with the 5 MiB image (`big.png`) and a small text file, removed by `remove`. */
export function makeMeasureFolder(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const imagePath = join(dir, 'big.png');
  writeFileSync(imagePath, randomBytes(BIG));
  writeFileSync(join(dir, 'small.txt'), 'hello\n');
  return { dir, imagePath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs `body(cleanups)`, then every cleanup it pushed, last first, each even when the body or another
 * cleanup failed; then exits (clients and children left behind must not keep the measurement alive).
 */
export async function withCleanups(body) {
  const cleanups = [];
  try {
    await body(cleanups);
  } finally {
    for (const cleanup of cleanups.reverse())
      await Promise.resolve()
        .then(cleanup)
        .catch(() => {});
  }
  process.exit(0);
}

/** The small call both measurements time: get_file_info of the folder's small file. */
export async function smallCall(client, dir) {
  await client.callTool({ name: 'get_file_info', arguments: { path: join(dir, 'small.txt') } }, undefined, { timeout: CALL_LIMIT_MS });
}

export const p50 = median;
export const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');

/** A TCP proxy on loopback that counts every byte both ways: the network leg as a real network would carry it. */
export function startCountingProxy(targetPort) {
  let total = 0;
  const sockets = new Set();
  const server = createServer((inbound) => {
    const outbound = connect(targetPort, '127.0.0.1');
    sockets.add(inbound).add(outbound);
    // As transparent as the loopback it stands on: no Nagle delay of its own on either side.
    inbound.setNoDelay(true);
    outbound.setNoDelay(true);
    inbound.on('data', (chunk) => (total += chunk.length));
    outbound.on('data', (chunk) => (total += chunk.length));
    inbound.pipe(outbound).on('error', () => {});
    outbound.pipe(inbound).on('error', () => {});
    const end = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('close', end).on('error', end);
    outbound.on('close', end).on('error', end);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        bytes: () => total,
        close: () => {
          for (const socket of sockets) socket.destroy();
          server.close();
        },
      }),
    );
  });
}

/**
 * A variant's record for `runRounds`: its call times (ms) per phase, the calls made, and how far each of its
 * meters moved during each phase (`spent.big.bytes`, ...).
 */
export function newRecord(variant) {
  return { ...variant, big: [], small: [], calls: { big: 0, small: 0 }, spent: { big: {}, small: {} } };
}

/**
 * Warms a variant up (one big and five small calls, so none pays for JIT or first connections in the
 * figures); false, with the reason printed, when it cannot make them: the variant is then left out.
 */
export async function warmUp(record, bigCall, smallCall) {
  try {
    await bigCall(record);
    for (let i = 0; i < 5; i++) await smallCall(record);
    return true;
  } catch (error) {
    console.error(`${record.name}: left out, its warm-up failed (${error.message})`);
    return false;
  }
}

/**
 * The rounds both measurements run, interleaved: each round, each variant in turn makes `bigCalls` big
 * calls, then `smallCalls` small ones; each call is timed, and around each block `record.meters()` (e.g.
 * a process's CPU, the proxy's bytes) is read, its movement added to `record.spent[phase]`.
 */
export async function runRounds({ rounds, records, bigCalls, smallCalls, bigCall, smallCall }) {
  const phases = [
    ['big', bigCalls, bigCall],
    ['small', smallCalls, smallCall],
  ];
  for (let round = 0; round < rounds; round++) {
    for (const record of records) {
      for (const [phase, calls, call] of phases) {
        const before = record.meters();
        for (let i = 0; i < calls; i++) {
          const start = performance.now();
          await call(record);
          record[phase].push(performance.now() - start);
        }
        const after = record.meters();
        for (const [meter, value] of Object.entries(after)) record.spent[phase][meter] = (record.spent[phase][meter] ?? 0) + value - before[meter];
        record.calls[phase] += calls;
      }
    }
  }
}
