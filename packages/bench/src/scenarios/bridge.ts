import { spawn, type ChildProcess } from 'node:child_process';
import { watchChild, type WatchedChild } from '../runner/child-watch.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { callToolNative, HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { CountingProxy } from '../metrics/bytes.js';
import { readProcessCpuNs } from '../metrics/cpu.js';
import { textTable } from '../report/columns.js';
import { formatRatio, VERDICT_MARK } from '../report/format.js';
import { classify, median, summarizeRatios } from '../stats.js';

/**
 * `--scenario bridge` (opt-in, on its own: it starts the bridge, which the published bench does not depend
 * on): mcp-msgpack-bridge both ways, each way's paths in alternating rounds, a 5 MiB read_media_file and a
 * small get_file_info per block, bytes counted on the network leg (both ways, headers included).
 * - host to remote: a desktop host's JSON client straight to the media server over HTTP (the baseline),
 *   through the bridge on stdio (MessagePack, native bytes on the network), and through mcp-remote when it
 *   is installed (`npm i --no-save mcp-remote`);
 * - reverse (`--serve`): the SDK's JSON HTTP client through the bridge to a stdio JSON child (the baseline),
 *   our HTTP client with native bytes, the same reading them as bytes (callToolNative), and a stock stdio
 *   client straight to such a child (no bridge, no network).
 */

const BIG = 5 * 1024 * 1024;
const CALL_LIMIT_MS = 60_000;

export interface BridgeOptions {
  rounds: number;
  bigCalls: number;
  smallCalls: number;
  log: (line: string) => void;
}

/** What one path measured in one round: per 5 MiB call and per small call. */
interface Round {
  bigMs: number;
  smallMs: number;
  bytes: number;
  /** CPU ms per call of the process that answers (host to remote: the server; reverse: the path's child). */
  serverCpu: number;
  /** CPU ms per call of the relay (the bridge or mcp-remote), per 5 MiB and per small call. */
  relayCpu?: number;
  relaySmallCpu?: number;
}

export interface BridgePath {
  way: 'host to remote' | 'reverse';
  name: string;
  rounds: Round[];
  /** No network leg (the stdio client straight to its child). */
  local?: boolean;
}

interface Path {
  name: string;
  client: Client;
  native?: boolean;
  local?: boolean;
  serverPid: number;
  relayPid?: number;
  rounds: Round[];
}

const require = createRequire(import.meta.url);

/** A package's command, from its package.json's bin; undefined when the package is not installed. */
function binOf(name: string, from = require): string | undefined {
  try {
    const manifest = from.resolve(`${name}/package.json`);
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string | Record<string, string> };
    return join(dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0]!);
  } catch {
    return undefined;
  }
}

/** Starts a server that prints its URL as its first line; resolves with it and the process. */
function startUrlPrinter(command: string, args: string[], what: string): Promise<{ child: ChildProcess; watched: WatchedChild; url: URL }> {
  return new Promise((resolve, reject) => {
    // Its stderr is kept (not shown) for the report of a child that died.
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const watched = watchChild(child, { role: what, runtime: command, scenario: 'bridge' }, { stderr: child.stderr, echo: false });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} printed no URL within 20 s`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      child.stdout!.resume();
      resolve({ child, watched, url: new URL(out.split('\n')[0]!.trim()) });
    });
    child.once('exit', (code) => reject(new Error(`${what} exited (${code})`)));
  });
}

/** The child processes of `pid` (Linux: every thread's `children` list). */
function childrenOf(pid: number): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const list = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (list) pids.push(...list.split(' ').map(Number));
  }
  return pids;
}

const cpuMs = (pid: number | undefined) => (pid === undefined ? 0 : (readProcessCpuNs(pid) ?? Number.NaN) / 1e6);

/** Runs both ways; undefined (with the reason logged) when the bridge or the media server is not here. */
export async function runBridgeScenario(options: BridgeOptions): Promise<BridgePath[] | undefined> {
  const bridge = binOf('mcp-msgpack-bridge');
  const media = binOf('mcp-filesystem-media-server');
  if (!bridge || !media) {
    options.log('bridge: skipped: it runs where mcp-msgpack-bridge and mcp-filesystem-media-server are installed (a checkout of the repository)');
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'mcp-msgpack-bench-bridge-'));
  writeFileSync(join(dir, 'big.png'), randomBytes(BIG));
  writeFileSync(join(dir, 'small.txt'), 'hello\n');
  const cleanups: Array<() => unknown> = [() => rmSync(dir, { recursive: true, force: true })];
  const connect = async (name: string, transport: Transport & { pid?: number | null }, extra: Partial<Path> & { serverPid?: number }): Promise<Path> => {
    const client = new Client({ name: 'mcp-msgpack-bench', version: '0.1.0' });
    await client.connect(transport);
    // A stdio transport's child (the bridge, mcp-remote, the media server) is watched as any server is.
    const child = (transport as { _process?: ChildProcess })._process;
    const watched = child && watchChild(child, { role: 'stdio child', runtime: process.execPath, scenario: 'bridge', variant: name });
    cleanups.push(() => {
      watched?.expectExit();
      return client.close();
    });
    return { name, client, serverPid: extra.serverPid ?? transport.pid ?? 0, rounds: [], ...extra };
  };
  try {
    const paths: BridgePath[] = [];
    // Host to remote: the media server over HTTP, behind the counting proxy.
    const server = await startUrlPrinter(process.execPath, [media, '--http', '127.0.0.1:0', dir], 'the media server');
    cleanups.push(() => server.watched.stop());
    const toServer = new CountingProxy(Number(server.url.port));
    cleanups.push(() => toServer.close());
    const url = `http://127.0.0.1:${await toServer.listen()}/mcp`;
    const stdio = (command: string, args: string[]) => new StdioClientTransport({ command, args, stderr: 'ignore' });
    const host: Path[] = [await connect('direct JSON (SDK HTTP client)', new StreamableHTTPClientTransport(new URL(url)), { serverPid: server.child.pid! })];
    const viaBridge = stdio(process.execPath, [bridge, url]);
    host.push(await connect('mcp-msgpack-bridge', viaBridge, { serverPid: server.child.pid! }));
    host.at(-1)!.relayPid = viaBridge.pid ?? undefined;
    const remote = binOf('mcp-remote', createRequire(join(process.cwd(), 'x.js')));
    if (remote) {
      const viaRemote = stdio(process.execPath, [remote, url, '--transport', 'http-only', '--allow-http']);
      host.push(await connect('mcp-remote', viaRemote, { serverPid: server.child.pid! }));
      host.at(-1)!.relayPid = viaRemote.pid ?? undefined;
    } else options.log('bridge: mcp-remote is not installed here (npm i --no-save mcp-remote to compare with it)');
    await runRounds(host, toServer, dir, options);
    paths.push(...host.map((p) => ({ way: 'host to remote' as const, name: p.name, rounds: p.rounds })));

    // Reverse: the bridge's --serve in front of stdio JSON children (the media server's CLI), one per session.
    const served = await startUrlPrinter(process.execPath, [bridge, '--serve', '--', process.execPath, media, dir], 'the bridge');
    cleanups.push(() => served.watched.stop());
    const toBridge = new CountingProxy(Number(served.url.port));
    cleanups.push(() => toBridge.close());
    const bridgeUrl = new URL(`http://127.0.0.1:${await toBridge.listen()}/mcp`);
    const reverse: Path[] = [];
    for (const [name, make, native] of [
      ['SDK JSON HTTP client -> bridge --serve', () => new StreamableHTTPClientTransport(bridgeUrl), false],
      ['our HTTP client (native bytes) -> bridge --serve', () => new HttpMsgpackClientTransport(bridgeUrl, { nativeBytes: true }), false],
      ['our HTTP client, callToolNative -> bridge --serve', () => new HttpMsgpackClientTransport(bridgeUrl, { nativeBytes: true }), true],
    ] as const) {
      const known = childrenOf(served.child.pid!);
      const path = await connect(name, make(), { native, relayPid: served.child.pid! });
      // The child this session got: the one the bridge started meanwhile.
      path.serverPid = childrenOf(served.child.pid!).find((pid) => !known.includes(pid)) ?? 0;
      if (!path.serverPid) throw new Error(`${name}: cannot find its child process`);
      reverse.push(path);
    }
    reverse.push(await connect('stock stdio client -> JSON stdio child (no bridge)', stdio(process.execPath, [media, dir]), { local: true }));
    await runRounds(reverse, toBridge, dir, options);
    paths.push(...reverse.map((p) => ({ way: 'reverse' as const, name: p.name, rounds: p.rounds, ...(p.local ? { local: true } : {}) })));
    return paths;
  } finally {
    for (const cleanup of cleanups.reverse())
      await Promise.resolve()
        .then(cleanup)
        .catch(() => {});
  }
}

/** Warm-up, then rounds alternating the paths (reversed every other round): a block of big calls, then small. */
async function runRounds(paths: Path[], proxy: CountingProxy, dir: string, options: BridgeOptions): Promise<void> {
  const bytes = () => proxy.counter.sent + proxy.counter.received;
  const big = async (path: Path) => {
    const params = { name: 'read_media_file', arguments: { path: join(dir, 'big.png') } };
    const result = (path.native ? await callToolNative(path.client, params, { timeout: CALL_LIMIT_MS }) : await path.client.callTool(params, undefined, { timeout: CALL_LIMIT_MS })) as {
      content?: Array<{ data?: unknown }>;
    };
    const data = result.content?.[0]?.data;
    // Checked on every call: a path that loses bytes gets no figure.
    const size = data instanceof Uint8Array ? data.byteLength : typeof data === 'string' ? Buffer.from(data, 'base64').byteLength : -1;
    if (size !== BIG) throw new Error(`${path.name}: read_media_file returned ${size} bytes`);
  };
  const small = (path: Path) => path.client.callTool({ name: 'get_file_info', arguments: { path: join(dir, 'small.txt') } }, undefined, { timeout: CALL_LIMIT_MS });
  for (const path of paths) {
    await big(path);
    for (let i = 0; i < 5; i++) await small(path);
  }
  const block = async (path: Path, calls: number, call: (path: Path) => Promise<unknown>) => {
    const [server, relay, sent] = [cpuMs(path.serverPid), cpuMs(path.relayPid), bytes()];
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await call(path);
      times.push(performance.now() - started);
    }
    return { ms: median(times), serverCpu: (cpuMs(path.serverPid) - server) / calls, relayCpu: (cpuMs(path.relayPid) - relay) / calls, bytes: (bytes() - sent) / calls };
  };
  for (let round = 0; round < options.rounds; round++) {
    for (const path of round % 2 === 0 ? paths : [...paths].reverse()) {
      const b = await block(path, options.bigCalls, big);
      const s = await block(path, options.smallCalls, small);
      path.rounds.push({ bigMs: b.ms, smallMs: s.ms, bytes: b.bytes, serverCpu: b.serverCpu, ...(path.relayPid ? { relayCpu: b.relayCpu, relaySmallCpu: s.relayCpu } : {}) });
    }
    options.log(`bridge: round ${round + 1}/${options.rounds} done (${paths.length} paths)`);
  }
}

/** Median and per-round ratio to the way's first path (median, range, verdict), lower is better. */
function cell(path: BridgePath, base: BridgePath, read: (r: Round) => number | undefined, unit: (v: number) => string): string {
  const values = path.rounds.map(read).filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (values.length === 0) return '-';
  if (path === base) return unit(median(values));
  const ratios = path.rounds.map((r, i) => (read(r) ?? Number.NaN) / (read(base.rounds[i]!) ?? Number.NaN));
  const summary = summarizeRatios(ratios);
  return summary ? `${unit(median(values))}, ${formatRatio(summary)} ${VERDICT_MARK[classify(summary, true)]}` : unit(median(values));
}

export function renderBridge(paths: readonly BridgePath[], options: Pick<BridgeOptions, 'rounds' | 'bigCalls' | 'smallCalls'>): string {
  const ms = (digits: number) => (v: number) => `${v.toFixed(digits)} ms`;
  const mib = (v: number) => `${(v / 1048576).toFixed(2)} MiB`;
  const lines = [
    `bridge: ${options.rounds} rounds alternating the paths, each round ${options.bigCalls} x read_media_file of 5 MiB, then ${options.smallCalls} x get_file_info;`,
    "medians over rounds, then each path / the way's first (median of per-round ratios, range, W/=/L). CPU: every thread (/proc).",
  ];
  for (const way of ['host to remote', 'reverse'] as const) {
    const rows = paths.filter((p) => p.way === way);
    const base = rows[0];
    if (!base) continue;
    const answering = way === 'host to remote' ? 'server CPU/5 MiB' : 'child CPU/5 MiB';
    lines.push(
      '',
      way === 'host to remote' ? 'HOST TO REMOTE: the media server over HTTP; the host an SDK Client' : 'REVERSE (--serve): stdio JSON children of the bridge, one per session',
      textTable(
        ['path', answering, 'network bytes/5 MiB', 'p50 5 MiB', 'relay CPU/5 MiB', 'p50 small', 'relay CPU/small'],
        rows.map((p) => [
          p.name,
          cell(p, base, (r) => r.serverCpu, ms(1)),
          p.local ? 'none (stdio)' : cell(p, base, (r) => r.bytes, mib),
          cell(p, base, (r) => r.bigMs, ms(1)),
          cell(p, base, (r) => r.relayCpu, ms(1)),
          cell(p, base, (r) => r.smallMs, ms(2)),
          cell(p, base, (r) => r.relaySmallCpu, ms(2)),
        ]),
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
