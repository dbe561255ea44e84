import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { watchChild, type WatchedChild } from '../runner/child-watch.js';
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
 *
 * The 2026-07-28 rows (stateless): SDK v2's Client negotiating it ({ mode: 'auto' }, so connect is one
 * server/discover), against SDK v2's own createMcpHandler with SDK v2's client transport, and against ours
 * (same server options) with our client transport on its defaults, which posts tools/list beside the
 * discover (prefetchToolsList). SDK v2's McpServer per request, as its HTTP entry does: the bench tool
 * server's v2 variant (servers/tool-app-v2.ts, one tool, so a smaller list than the v1 tool server's four)
 * and the same recorded filesystem opening (servers/opening-app-v2.ts). Openings only: no object call.
 */
export interface LinkOptions {
  rounds: number;
  /** The links: bandwidth, Mbit/s, and added round-trip time, ms (0: bandwidth only). */
  links: ReadonlyArray<{ mbit: number; rttMs: number }>;
  log: (line: string) => void;
  /** Idle time before each session, ms (see SETTLE_MS). */
  settleMs?: number;
  /** The stacks to measure (default all four). */
  stacks?: readonly Stack[];
}

export interface LinkRow {
  mbit: number;
  rttMs: number;
  server: Stack;
  revision: Revision;
  openMs: number[];
  /** The opening of the recorded filesystem server (its 13 KB tools/list). */
  recordedOpenMs: number[];
  /** Empty on 2026-07-28 (openings only). */
  objectMs: number[];
  /** Bytes to the client per round (the whole session: opening, the object result if any, the close). */
  bytes: number[];
}

const ENTRY = fileURLToPath(new URL('../servers/entry.js', import.meta.url));
const OBJECT_BYTES = 1_000_000;
const STOCK_SERVER = ['--transport', 'http', '--stack', 'stock'];
const OUR_SERVER = ['--transport', 'http', '--stack', 'ours', '--defaults', '--compression', 'on'];

type Revision = '2025-11-25' | '2026-07-28';
const MODERN: Revision = '2026-07-28';

/** Each stack: its revision, its server's arguments, and its two apps (the tool server, the recorded opening). */
const STACKS = {
  stock: { revision: '2025-11-25', server: STOCK_SERVER, apps: ['tools', 'opening'] },
  ours: { revision: '2025-11-25', server: OUR_SERVER, apps: ['tools', 'opening'] },
  'stock-v2': { revision: MODERN, server: STOCK_SERVER, apps: ['tools-v2', 'opening-v2'] },
  'ours-v2': { revision: MODERN, server: OUR_SERVER, apps: ['tools-v2', 'opening-v2'] },
} as const satisfies Record<string, { revision: Revision; server: readonly string[]; apps: readonly [string, string] }>;

/**
 * Idle time before each session, ms: the previous session's close, the server's next instance (made ahead,
 * servers/entry.ts) and the collection of a 1 MB result's garbage would otherwise land in the next opening,
 * which is a few ms of CPU itself, and land in it unevenly (after a stock 1 MB session or ours).
 */
const SETTLE_MS = 100;

/** Issue 41's bound at 10 Mbit/s: ours / the stock server's latency. */
export const LINK_TARGET = 0.4;

async function start(args: readonly string[], variant: string): Promise<{ child: WatchedChild; port: number }> {
  const child = spawn(process.execPath, [ENTRY, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const watched = watchChild(child, { role: 'server', runtime: process.execPath, scenario: 'link', variant }, { stderr: child.stderr });
  return { child: watched, port: await readyPort(child, () => watched.kill('SIGKILL')) };
}

export type Stack = keyof typeof STACKS;
const ALL_STACKS = Object.keys(STACKS) as Stack[];

/** A connected client, as each stack's users run it; `v1` for the object call (2025-11-25 stacks). */
interface Connected {
  listTools(): Promise<unknown>;
  close(): Promise<void>;
  v1?: Client;
}

const CLIENT_INFO = { name: 'mcp-msgpack-bench', version: '0.1.0' };

/** Connects the stack's client: SDK v1's on 2025-11-25, SDK v2's negotiating 2026-07-28 on the others. */
async function connectClient(stack: Stack, url: URL): Promise<Connected> {
  if (STACKS[stack].revision !== MODERN) {
    const client = new Client(CLIENT_INFO);
    const transport: Transport = stack === 'stock' ? new StreamableHTTPClientTransport(url) : new HttpMsgpackClientTransport(url);
    await client.connect(transport);
    return { listTools: () => client.listTools(), close: () => client.close(), v1: client };
  }
  const client = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: 'auto' } });
  const transport = stack === 'stock-v2' ? new StreamableHTTPClientTransportV2(url) : new HttpMsgpackClientTransport(url);
  await client.connect(transport as never);
  if (client.getNegotiatedProtocolVersion() !== MODERN) throw new Error(`${stack}: negotiated ${client.getNegotiatedProtocolVersion()}, not ${MODERN}`);
  return { listTools: () => client.listTools(), close: () => client.close() };
}

/**
 * One session through a fresh link: the opening (connect, then tools/list) timed, then `after` (the object
 * call, or nothing), then the close.
 */
async function oneSession<T>(server: Stack, port: number, bitsPerSecond: number, rttMs: number, after: (client: Connected) => Promise<T>): Promise<{ openMs: number; bytes: number; then: T }> {
  const link = new ThrottledLink(port, bitsPerSecond, rttMs / 2);
  const url = new URL(`http://127.0.0.1:${await link.listen()}/mcp`);
  let client: Connected | undefined;
  try {
    const opened = performance.now();
    client = await connectClient(server, url);
    await client.listTools();
    const openMs = performance.now() - opened;
    const then = await after(client);
    return { openMs, bytes: link.received, then };
  } finally {
    await client?.close().catch(() => {});
    await link.close();
  }
}

/** The 1 MB object call, timed (2025-11-25 stacks; undefined on the others). */
async function objectCall(client: Connected): Promise<number | undefined> {
  if (!client.v1) return undefined;
  const called = performance.now();
  const result = await callTool(client.v1, 'review_context', { bytes: OBJECT_BYTES });
  const objectMs = performance.now() - called;
  if (!Array.isArray((result.structuredContent as { files?: unknown[] } | undefined)?.files)) throw new Error('review_context returned no files');
  return objectMs;
}

export async function runLinkScenario(options: LinkOptions): Promise<LinkRow[]> {
  const started = await Promise.all(
    (options.stacks ?? ALL_STACKS).map(async (server) => ({
      server,
      tools: await start(['--app', STACKS[server].apps[0], ...STACKS[server].server], `${server} ${STACKS[server].apps[0]}`),
      recorded: await start(['--app', STACKS[server].apps[1], ...STACKS[server].server], `${server} ${STACKS[server].apps[1]}`),
    })),
  );
  const rows: LinkRow[] = [];
  const settle = () => new Promise((resolve) => setTimeout(resolve, options.settleMs ?? SETTLE_MS));
  try {
    for (const { mbit, rttMs } of options.links) {
      const mine = started.map(({ server }) => ({
        mbit,
        rttMs,
        server,
        revision: STACKS[server].revision,
        openMs: [] as number[],
        recordedOpenMs: [] as number[],
        objectMs: [] as number[],
        bytes: [] as number[],
      }));
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
          if (measured.then !== undefined) row.objectMs.push(measured.then);
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
    await Promise.all(started.flatMap(({ tools, recorded }) => [tools.child.stop(), recorded.child.stop()]));
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

const LABELS: Record<Stack, string> = { stock: 'stock', ours: 'ours', 'stock-v2': 'stock v2', 'ours-v2': 'ours v2' };

/** The rounds' ratio of `row` to `base` on `pick`, as the table shows it. */
function ratioText(row: LinkRow, base: LinkRow | undefined, pick: (r: LinkRow) => number[]): string {
  if (!base || pick(row).length === 0) return '-';
  if (row === base) return '1.00x';
  const r = ratios(pick(row), pick(base));
  return `${r.median.toFixed(2)}x (${r.min.toFixed(2)}-${r.max.toFixed(2)})`;
}

export function renderLink(rows: readonly LinkRow[], rounds: number, runtime?: string): string {
  const lines = [
    `link${runtime ? ` on ${runtime}` : ''}: a throttling TCP relay on loopback (bandwidth each way, shared by a session's connections; no added delay unless an RTT is named, and then`,
    `a new connection's first bytes wait one RTT, its handshake), a fresh session per round after ${SETTLE_MS} ms idle, ${rounds} rounds alternating the servers after one warm-up each.`,
    "opening = connect + tools/list: on 2025-11-25 connect is initialize + notifications/initialized, on 2026-07-28 one server/discover. tools: the bench tool server's own list",
    '(2025-11-25: 4 tools, about 1.5 KB of JSON; 2026-07-28: its v2 variant, 1 tool, 0.5 KB); fs opening: the recorded filesystem server (its 13 KB tools/list, replayed) on both revisions;',
    'object = one 1 MB review_context result (2025-11-25 only). Medians; ratios round by round (range).',
    "Stock: the SDK's Streamable HTTP server and client (JSON, no coding): SDK v1's on 2025-11-25, SDK v2's createMcpHandler and client transport on 2026-07-28 (SDK v2's Client).",
    'Ours: our server on defaults + compression: true, our client on defaults (on 2026-07-28 it posts tools/list beside the discover). Target at 10 Mbit/s: <= ' + `${LINK_TARGET}x.`,
  ];
  const links = [...new Set(rows.map(linkName))];
  const table: string[][] = [];
  const verdicts: string[] = [];
  for (const link of links) {
    const here = rows.filter((r) => linkName(r) === link);
    const find = (stack: Stack) => here.find((r) => r.server === stack);
    const stockV1 = find('stock');
    for (const row of here) {
      const sameRevisionStock = row.revision === MODERN ? find('stock-v2') : stockV1;
      const bytes = `${(median(row.bytes) / 1024).toFixed(1)} KiB${row.objectMs.length === 0 ? ' (opening)' : ''}`;
      const opening = (pick: (r: LinkRow) => number[]) => [`${median(pick(row)).toFixed(1)} ms`, ratioText(row, sameRevisionStock, pick), ratioText(row, stockV1, pick)];
      const object = row.objectMs.length > 0 ? `${median(row.objectMs).toFixed(1)} ms` : '-';
      table.push([link, LABELS[row.server], row.revision, ...opening((r) => r.openMs), ...opening((r) => r.recordedOpenMs), object, ratioText(row, stockV1, (r) => r.objectMs), bytes]);
    }
    if (here[0]!.mbit !== 10 || here[0]!.rttMs !== 0) continue;
    const verdict = (what: string, ours: LinkRow | undefined, stock: LinkRow | undefined, pick: (r: LinkRow) => number[], against: string) => {
      if (!ours || !stock || pick(ours).length === 0) return;
      const r = ratios(pick(ours), pick(stock));
      verdicts.push(`${r.median <= LINK_TARGET ? 'MET   ' : 'MISSED'} 10 Mbit/s, ${what}: ${against} ${r.median.toFixed(2)}x (rounds ${r.min.toFixed(2)}-${r.max.toFixed(2)}) <= ${LINK_TARGET}x`);
    };
    const picks = [
      ['opening', (r: LinkRow) => r.openMs],
      ['fs opening', (r: LinkRow) => r.recordedOpenMs],
    ] as const;
    for (const [what, pick] of picks) verdict(what, find('ours'), stockV1, pick, 'ours / stock, both 2025-11-25,');
    verdict('1 MB object', find('ours'), stockV1, (r) => r.objectMs, 'ours / stock, both 2025-11-25,');
    for (const [what, pick] of picks) verdict(what, find('ours-v2'), stockV1, pick, 'ours on 2026-07-28 / stock SDK v1 on 2025-11-25 (what most run today)');
    for (const [what, pick] of picks) verdict(what, find('ours-v2'), find('stock-v2'), pick, 'ours / stock SDK v2, both 2026-07-28 (same revision)');
  }
  const ratioHeads = ['/ same-revision stock', '/ stock 2025-11-25'];
  lines.push('', textTable(['link', 'server', 'revision', 'opening p50', ...ratioHeads, 'fs opening p50', ...ratioHeads, '1 MB object p50', 'ours / stock', 'bytes to client/session'], table));
  if (verdicts.length > 0) lines.push('', 'TARGETS (issue 41)', ...verdicts);
  return `${lines.join('\n')}\n`;
}
