// The filesystem media server over HTTP, set up as its CLI's `--http` does (McpHttpHandler, native bytes,
// listenNode on Node and listenBun on Bun), in a process of its own that the measure scripts drive:
//   node|bun [--expose-gc] packages/bench/measure/lib/media-http-child.mjs DIR [--handler-options JSON] [--idle-collection cli|gc-only]
// --idle-collection gc-only (Bun only, for comparison): the idle release runs Bun.gc(true) alone, without the
// Bun.shrink() that the CLI's collection adds (it drops compiled code and returns the allocator's free memory).
// The CLI's glibc malloc settings (its re-execution, where the runtime can) are not applied here: the
// measure scripts pass them with --env, so that both can be measured.
// It prints one JSON line {"url": ...} once listening; then each line on stdin gets one JSON line back:
//   stats     its memory (process.memoryUsage, V8 heap statistics, /proc RSS and peak) and the handler's tables
//   gc        the same after a full garbage collection (needs --expose-gc on Node)
//   reset-hwm resets the kernel's peak-RSS mark (VmHWM), so the next stats' peak is this moment's onwards
//   maps      resident bytes by kind of mapping (/proc/self/smaps): the brk heap, malloc's other arenas,
//             other anonymous mappings, files; with V8's heap spaces (committed and used) next to them
//   exit      closes the server and exits
// Only the measure scripts use it; it is not part of the media server.
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import v8 from 'node:v8';
import { createFilesystemServer, garbageCollectorForThisProcess, resolveAllowedDirectories } from 'mcp-filesystem-media-server';
import { listenBun, listenNode, McpHttpHandler } from 'mcp-msgpack-transport';

const dir = process.argv[2];
const at = process.argv.indexOf('--handler-options');
const extra = at > 0 ? JSON.parse(process.argv[at + 1]) : {};
const isBun = typeof globalThis.Bun !== 'undefined';

const allowedDirectories = await resolveAllowedDirectories([dir]);
const serverOptions = { allowedDirectories, log: () => {}, nativeBytes: true };
// The CLI's idle release, collection included; --handler-options '{"idleRelease":false}' turns it off.
const gcOnly = process.argv.includes('--idle-collection') && process.argv[process.argv.indexOf('--idle-collection') + 1] === 'gc-only';
const collectGarbage = gcOnly ? () => globalThis.Bun.gc(true) : garbageCollectorForThisProcess();
const cliOptions = { idleRelease: { collectGarbage } };
const handler = new McpHttpHandler({ createServer: () => createFilesystemServer(serverOptions), nativeBytes: true, ...cliOptions, ...extra });
const running = await (isBun ? listenBun : listenNode)(handler, { port: 0 });

const status = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) * 1024;

function stats() {
  const usage = process.memoryUsage();
  const heap = v8.getHeapStatistics();
  return {
    rss: status('VmRSS'),
    hwm: status('VmHWM'),
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    // V8's own view: what it has mapped and touched, and what it allocated with malloc (outside the heap).
    heapPhysical: heap.total_physical_size,
    malloced: heap.malloced_memory,
    sessions: handler.sessionCount,
    streams: handler.openStreamCount,
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  };
}

/**
 * Resident memory by kind of mapping (/proc/self/smaps), to tell where RSS outside V8's heap lives:
 * - `[heap]`: glibc's main arena (brk), where small mallocs of the main thread go;
 * - `malloc arenas`: glibc's other arenas (threads' mallocs: libuv's pool, V8's GC helpers), each an
 *   anonymous mapping 64 MiB-aligned with its unused tail reserved (`---p`) right after it;
 * - `anonymous`: everything else anonymous: V8's pages, large mallocs (mmap'd chunks), ArrayBuffers'
 *   backing stores, thread stacks; `v8Physical` says how much of it is V8's heap;
 * - `files`: code and data of the binary and libraries.
 * With V8's heap spaces (committed, used, physical), where V8 gives them (Node; Bun gives none).
 */
function residentByMapping() {
  const ARENA_ALIGN = 64 * 2 ** 20;
  const mappings = [];
  let current;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      current = { start: parseInt(head[1], 16), end: parseInt(head[2], 16), perms: head[3], name: head[4], rss: 0 };
      mappings.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) current.rss = Number(rss[1]) * 1024;
  }
  const kinds = {};
  mappings.forEach((m, i) => {
    const next = mappings[i + 1];
    const arena = m.name === '' && m.start % ARENA_ALIGN === 0 && m.end - m.start <= ARENA_ALIGN && (m.end - m.start === ARENA_ALIGN || (next?.start === m.end && next.perms.startsWith('---')));
    const kind = m.name === '' ? (arena ? 'malloc arenas' : 'anonymous') : m.name.startsWith('[') ? m.name : 'files';
    kinds[kind] = (kinds[kind] ?? 0) + m.rss;
  });
  if (isBun) return kinds; // Bun's node:v8 figures are not JavaScriptCore's heap
  const heap = v8.getHeapStatistics();
  kinds.v8Physical = heap.total_physical_size;
  kinds.v8Committed = heap.total_heap_size;
  kinds.spaces = Object.fromEntries((v8.getHeapSpaceStatistics?.() ?? []).map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size, physical: space.physical_space_size }]));
  return kinds;
}

function collect() {
  if (isBun) globalThis.Bun.gc(true);
  else if (typeof globalThis.gc === 'function') {
    // Twice: the first pass runs finalizers that free what the second one can take.
    globalThis.gc();
    globalThis.gc();
  }
}

process.stdout.write(`${JSON.stringify({ url: running.url.href, pid: process.pid, runtime: isBun ? `bun ${globalThis.Bun.version}` : `node ${process.version}` })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const command = line.trim();
  if (command === 'exit') break;
  if (command === 'gc') collect();
  // Writing 5 to clear_refs resets the peak RSS the kernel keeps for the process (Linux 4.0 and later).
  if (command === 'reset-hwm') writeFileSync('/proc/self/clear_refs', '5');
  process.stdout.write(`${JSON.stringify(command === 'maps' ? residentByMapping() : stats())}\n`);
}
await running.close();
process.exit(0);
