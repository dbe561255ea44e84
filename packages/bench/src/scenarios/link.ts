import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { onInterrupt } from '../interrupt.js';
import { ThrottledLink } from '../metrics/throttled-link.js';
import { textTable } from '../report/columns.js';
import { readyPort } from '../runner/session.js';
import { median } from '../stats.js';
import { callTool } from './calls.js';

/**
 * `--scenario link` (issue 41; opt-in, on its own): client latency over a bandwidth-limited link, a
 * throttling TCP relay on loopback (metrics/throttled-link.ts) at each bandwidth, for the session's opening
 * (connect: initialize and notifications/initialized, then tools/list) and for a 1 MB object result
 * (review_context, the object venue's payload). Two servers, each in a process of its own, the bench tool
 * server on both: the stock SDK's Streamable HTTP server (JSON, no coding) with the stock SDK client, and ours
 * on its defaults with `compression: true` (what 'auto' does off loopback) with our client on its defaults.
 * The bench tool server's tools/list is a few hundred bytes; a real server's is not, so each round also opens
 * a session on a recorded opening (servers/opening-app.ts: the filesystem server's initialize answer and its
 * 13 KB tools/list), on each stack the same way. A fresh session per round, each after SETTLE_MS idle;
 * rounds alternate the servers, after one round each that is not counted.
 */
export interface LinkOptions {
  rounds: number;
  /** The links: bandwidth, Mbit/s, and added round-trip time, ms (0: bandwidth only). */
  links: ReadonlyArray<{ mbit: number; rttMs: number }>;
  log: (line: string) => void;
  /** Idle time before each session, ms (see SETTLE_MS). */
  settleMs?: number;
}

export interface LinkRow {
  mbit: number;
  rttMs: number;
  server: 'stock' | 'ours';
  openMs: number[];
  /** The opening of the recorded filesystem server (its 13 KB tools/list). */
  recordedOpenMs: number[];
  objectMs: number[];
  /** Bytes to the client per round (the whole session: opening, the object result, the close). */
  bytes: number[];
}

const ENTRY = fileURLToPath(new URL('../servers/entry.js', import.meta.url));
const OBJECT_BYTES = 1_000_000;
const STACKS = {
  stock: ['--transport', 'http', '--stack', 'stock'],
  ours: ['--transport', 'http', '--stack', 'ours', '--defaults', '--compression', 'on'],
} as const;

/**
 * Idle time before each session, ms: the previous session's close, the server's next instance (made ahead,
 * servers/entry.ts) and the collection of a 1 MB result's garbage would otherwise land in the next opening,
 * which is a few ms of CPU itself, and land in it unevenly (after a stock 1 MB session or ours).
 */
const SETTLE_MS = 100;

/** Issue 41's bound at 10 Mbit/s: ours / the stock server's latency. */
export const LINK_TARGET = 0.4;

async function start(args: readonly string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [ENTRY, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.once(
    'exit',
    onInterrupt(() => child.kill('SIGKILL')),
  );
  return { child, port: await readyPort(child) };
}

type Stack = keyof typeof STACKS;

/**
 * One session through a fresh link: the opening (connect, then tools/list) timed, then `after` (the object
 * call, or nothing), then the close.
 */
async function oneSession<T>(server: Stack, port: number, bitsPerSecond: number, rttMs: number, after: (client: Client) => Promise<T>): Promise<{ openMs: number; bytes: number; then: T }> {
  const link = new ThrottledLink(port, bitsPerSecond, rttMs / 2);
  const url = new URL(`http://127.0.0.1:${await link.listen()}/mcp`);
  const client = new Client({ name: 'mcp-msgpack-bench', version: '0.1.0' });
  const transport: Transport = server === 'stock' ? new StreamableHTTPClientTransport(url) : new HttpMsgpackClientTransport(url);
  try {
    const opened = performance.now();
    await client.connect(transport);
    await client.listTools();
    const openMs = performance.now() - opened;
    const then = await after(client);
    return { openMs, bytes: link.received, then };
  } finally {
    await client.close().catch(() => {});
    await link.close();
  }
}

/** The 1 MB object call, timed. */
async function objectCall(client: Client): Promise<number> {
  const called = performance.now();
  const result = await callTool(client, 'review_context', { bytes: OBJECT_BYTES });
  const objectMs = performance.now() - called;
  if (!Array.isArray((result.structuredContent as { files?: unknown[] } | undefined)?.files)) throw new Error('review_context returned no files');
  return objectMs;
}

export async function runLinkScenario(options: LinkOptions): Promise<LinkRow[]> {
  const started = await Promise.all(
    (['stock', 'ours'] as const).map(async (server) => ({
      server,
      tools: await start(['--app', 'tools', ...STACKS[server]]),
      recorded: await start(['--app', 'opening', ...STACKS[server]]),
    })),
  );
  const rows: LinkRow[] = [];
  const settle = () => new Promise((resolve) => setTimeout(resolve, options.settleMs ?? SETTLE_MS));
  try {
    for (const { mbit, rttMs } of options.links) {
      const mine = started.map(({ server }) => ({ mbit, rttMs, server, openMs: [] as number[], recordedOpenMs: [] as number[], objectMs: [] as number[], bytes: [] as number[] }));
      rows.push(...mine);
      for (let round = 0; round <= options.rounds; round++) {
        const order = round % 2 === 0 ? started : [...started].reverse();
        for (const { server, tools } of order) {
          options.log(`link ${linkName({ mbit, rttMs })}: ${round === 0 ? 'warm-up' : `round ${round}/${options.rounds}`} ${server}`);
          await settle();
          const measured = await oneSession(server, tools.port, mbit * 1_000_000, rttMs, objectCall);
          if (round === 0) continue;
          const row = mine.find((r) => r.server === server)!;
          row.openMs.push(measured.openMs);
          row.objectMs.push(measured.then);
          row.bytes.push(measured.bytes);
        }
        // The recorded opening in the other order, so neither stack always follows the other's 1 MB session.
        for (const { server, recorded } of [...order].reverse()) {
          await settle();
          const measured = await oneSession(server, recorded.port, mbit * 1_000_000, rttMs, async () => {});
          if (round > 0) mine.find((r) => r.server === server)!.recordedOpenMs.push(measured.openMs);
        }
      }
    }
  } finally {
    for (const { tools, recorded } of started) for (const { child } of [tools, recorded]) child.kill('SIGTERM');
  }
  return rows;
}

function linkName(link: { mbit: number; rttMs: number }): string {
  return link.rttMs > 0 ? `${link.mbit} Mbit/s + ${link.rttMs} ms RTT` : `${link.mbit} Mbit/s`;
}

/** Ours / stock, round by round: median and range. */
function ratios(ours: number[], stock: number[]): { median: number; min: number; max: number } {
  const each = ours.map((value, i) => value / stock[i]!);
  return { median: median(each), min: Math.min(...each), max: Math.max(...each) };
}

export function renderLink(rows: readonly LinkRow[], rounds: number, runtime?: string): string {
  const lines = [
    `link${runtime ? ` on ${runtime}` : ''}: a throttling TCP relay on loopback (bandwidth each way; no added delay unless an RTT is named), a fresh session per round after ${SETTLE_MS} ms idle, ${rounds} rounds alternating the servers after one warm-up each;`,
    "opening = connect (initialize, notifications/initialized) + tools/list: the bench tool server's own (4 tools, about 1.5 KB of JSON), and the recorded filesystem",
    "server's opening (fs opening: its initialize answer and 13 KB tools/list, replayed); object = one 1 MB review_context result. Medians; ours / stock per round (range).",
    `Stock: the SDK's Streamable HTTP server and client (JSON, no coding). Ours: our server on defaults + compression: true, our client on defaults. Target at 10 Mbit/s: <= ${LINK_TARGET}x.`,
  ];
  const links = [...new Set(rows.map(linkName))];
  const table: string[][] = [];
  const verdicts: string[] = [];
  for (const link of links) {
    const stock = rows.find((r) => linkName(r) === link && r.server === 'stock')!;
    const ours = rows.find((r) => linkName(r) === link && r.server === 'ours')!;
    for (const row of [stock, ours]) {
      const ratio = (pick: (r: LinkRow) => number[]) => {
        if (row === stock) return '1.00x';
        const r = ratios(pick(ours), pick(stock));
        return `${r.median.toFixed(2)}x (${r.min.toFixed(2)}-${r.max.toFixed(2)})`;
      };
      table.push([
        link,
        row.server,
        `${median(row.openMs).toFixed(1)} ms`,
        ratio((r) => r.openMs),
        `${median(row.recordedOpenMs).toFixed(1)} ms`,
        ratio((r) => r.recordedOpenMs),
        `${median(row.objectMs).toFixed(1)} ms`,
        ratio((r) => r.objectMs),
        `${(median(row.bytes) / 1024).toFixed(1)} KiB`,
      ]);
    }
    if (stock.mbit === 10 && stock.rttMs === 0) {
      for (const [what, pick] of [
        ['opening', (r: LinkRow) => r.openMs],
        ['fs opening', (r: LinkRow) => r.recordedOpenMs],
        ['1 MB object', (r: LinkRow) => r.objectMs],
      ] as const) {
        const r = ratios(pick(ours), pick(stock));
        verdicts.push(`${r.median <= LINK_TARGET ? 'MET   ' : 'MISSED'} 10 Mbit/s, ${what}: ours / stock latency ${r.median.toFixed(2)}x (rounds ${r.min.toFixed(2)}-${r.max.toFixed(2)}) <= ${LINK_TARGET}x`);
      }
    }
  }
  lines.push('', textTable(['link', 'server', 'opening p50', 'ours / stock', 'fs opening p50', 'ours / stock', '1 MB object p50', 'ours / stock', 'bytes to client/session'], table));
  if (verdicts.length > 0) lines.push('', 'TARGETS (issue 41)', ...verdicts);
  return `${lines.join('\n')}\n`;
}
