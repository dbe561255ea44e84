// The filesystem media server over HTTP, set up as its CLI's `--http` does (McpHttpHandler, native bytes,
// listenNode on Node and listenBun on Bun), in a process of its own that the measure scripts drive:
//   node|bun [--expose-gc] scripts/lib/media-http-child.mjs DIR [--handler-options JSON]
// It prints one JSON line {"url": ...} once listening; then each line on stdin gets one JSON line back:
//   stats     its memory (process.memoryUsage, V8 heap statistics, /proc RSS and peak) and the handler's tables
//   gc        the same after a full garbage collection (needs --expose-gc on Node)
//   reset-hwm resets the kernel's peak-RSS mark (VmHWM), so the next stats' peak is this moment's onwards
//   maps      resident bytes by kind of mapping (/proc/self/smaps): the brk heap, anonymous, files
//   exit      closes the server and exits
// Only the measure scripts use it; it is not part of the media server.
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import v8 from 'node:v8';
import { createFilesystemServer, resolveAllowedDirectories } from 'mcp-filesystem-media-server';
import { listenBun, listenNode, McpHttpHandler } from 'mcp-msgpack-transport';

const dir = process.argv[2];
const at = process.argv.indexOf('--handler-options');
const extra = at > 0 ? JSON.parse(process.argv[at + 1]) : {};
const isBun = typeof globalThis.Bun !== 'undefined';

const allowedDirectories = await resolveAllowedDirectories([dir]);
const serverOptions = { allowedDirectories, log: () => {}, nativeBytes: true };
const handler = new McpHttpHandler({ createServer: () => createFilesystemServer(serverOptions), nativeBytes: true, ...extra });
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
 * Resident memory by kind of mapping (/proc/self/smaps): the brk heap, anonymous mappings (malloc's other
 * arenas and large blocks, V8's pages) by size class, and files (code): where RSS outside V8's heap lives.
 */
function residentByMapping() {
  const kinds = {};
  let kind = 'other';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const [start, end] = line
        .split(' ')[0]
        .split('-')
        .map((hex) => parseInt(hex, 16));
      const name = head[1];
      const size = end - start;
      kind = name === '' ? `anonymous ${size >= 64 * 2 ** 20 ? '>= 64 MiB (malloc arenas)' : size >= 2 ** 20 ? '1-64 MiB' : '< 1 MiB'}` : name.startsWith('[') ? name : 'files';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kinds[kind] = (kinds[kind] ?? 0) + Number(rss[1]) * 1024;
  }
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
