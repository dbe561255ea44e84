import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { ByteCounter, countChildStdio, countingSpawn, type ByteSource } from '../metrics/bytes.js';
import { startRelayProcess, type RelayHost, type RelayProcess } from '../metrics/relay-process.js';
import { RawHttpClient, RawPipeClient } from './raw-client.js';
import type { VariantSpec } from './variant.js';
import { watchChild, type WatchedChild } from './child-watch.js';

/** A running variant: its server process, its connected clients and the byte counter between them. */
export interface Session {
  spec: VariantSpec;
  serverPid: number;
  clients: Client[];
  /** Bytes between the clients and the server: counted on the child's pipes (stdio) or by a relay process (HTTP). */
  bytes: ByteSource;
  /** The last error a client's transport reported (e.g. why the connection closed), if any. */
  lastError(): string | undefined;
  /** The server child, watched (child-watch.ts): a death the session did not ask for is recorded. */
  server: WatchedChild;
  /** Stops the server (its exit awaited) and closes the clients. */
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('../servers/entry.js', import.meta.url));
const RAW_ENTRY = fileURLToPath(new URL('../servers/raw-media.js', import.meta.url));
const RAW_HTTP_ENTRY = fileURLToPath(new URL('../servers/raw-media-http.js', import.meta.url));

export function officialFilesystemEntry(): string {
  const require = createRequire(import.meta.url);
  return require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
}

function serverArgs(spec: VariantSpec, mediaDir: string | undefined): string[] {
  if (spec.server === 'official') return [officialFilesystemEntry(), mediaDir ?? process.cwd()];
  const args = [spec.build ? join(spec.build, 'entry.js') : ENTRY, '--app', spec.server, '--transport', spec.transport, '--stack', spec.stack];
  if (mediaDir) args.push('--dir', mediaDir);
  if (spec.gzip) args.push('--gzip');
  if (spec.compression) args.push('--compression', spec.compression);
  if (spec.defaults) args.push('--defaults');
  if (spec.encoding) args.push('--encoding', spec.encoding);
  // Our media servers always accept native bytes, as a deployment would; whether they are used is the client's choice.
  if (spec.server === 'media' && spec.stack === 'ours') args.push('--native');
  return args;
}

/**
 * A client that remembers its transport's last error, so a failed variant can say why: SDK v1's, or for
 * the revision venue SDK v2's, pinned to 2026-07-28 or on 2025-11-25 (its default, initialize).
 */
function newClient(errors: string[], spec?: VariantSpec): Client {
  const info = { name: 'mcp-msgpack-bench', version: '0.1.0' };
  const client = spec?.server === 'tools-v2' ? (new ClientV2(info, spec.revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) as unknown as Client) : new Client(info);
  client.onerror = (error) => void errors.push(error.message);
  return client;
}

/**
 * Starts the server and connects the variant's clients. `runtime` is the executable for the server. Over
 * HTTP the bytes are counted by a relay of `relays` (the run's relay process), or of a process of its own.
 */
export async function startSession(spec: VariantSpec, runtime: string, mediaDir?: string, relays?: () => Promise<RelayHost>, scenario?: string): Promise<Session> {
  // The scenario that starts the server is named if it dies before it is ready.
  const where: Where = { runtime, scenario };
  if (spec.stack === 'raw') return spec.transport === 'http' ? startRawHttp(spec, where, relays) : startRaw(spec, where);
  return spec.transport === 'stdio' ? startStdio(spec, where, mediaDir) : startHttp(spec, where, mediaDir, relays);
}

/** The runtime executable a server runs on, and the scenario starting it. */
interface Where {
  runtime: string;
  scenario: string | undefined;
}

/** The raw pipe baseline: its client stands where an MCP Client does (the media venue's raw calls know it). */
async function startRaw(spec: VariantSpec, where: Where): Promise<Session> {
  const bytes = new ByteCounter();
  const child = countingSpawn(bytes)(where.runtime, [spec.build ? join(spec.build, 'raw-media.js') : RAW_ENTRY], { stdio: ['pipe', 'pipe', 'pipe'] });
  const server = watchServer(child, spec, where);
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const raw = new RawPipeClient(child);
  return {
    spec,
    serverPid: child.pid!,
    clients: [raw as unknown as Client],
    bytes,
    lastError: () => undefined,
    server,
    close: async () => {
      // Its stdin's end is its stop.
      server.expectExit();
      raw.close();
      await server.exited;
    },
  };
}

/**
 * An HTTP server process and the relay that counts its bytes. The server's stdin is not a pipe, so it would
 * outlive an interrupted benchmark: it is killed on interrupt. The relay runs in a process of its own, so its
 * work is counted neither as server nor as client CPU.
 */
async function spawnBehindRelay(spec: VariantSpec, where: Where, args: string[], relays: (() => Promise<RelayHost>) | undefined): Promise<{ server: WatchedChild; proxy: RelayProcess }> {
  const child = spawn(where.runtime, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const server = watchServer(child, spec, where);
  const port = await readyPort(child, () => server.kill('SIGKILL'));
  try {
    return { server, proxy: relays ? await (await relays()).open(port) : await startRelayProcess(port) };
  } catch (error) {
    await server.stop('SIGKILL');
    throw error;
  }
}

/** Watches a variant's server child; `stderr: 'pipe'` in its spawn options lets its stderr's tail be kept. */
function watchServer(child: ChildProcess, spec: VariantSpec, where: Where, stderr: ChildProcess['stderr'] = child.stderr, echo = true): WatchedChild {
  return watchChild(child, { role: 'server', runtime: where.runtime, scenario: where.scenario, variant: spec.label }, { stderr, echo });
}

/** The raw HTTP file server baseline, its bytes counted by the run's relay as every HTTP variant's are. */
async function startRawHttp(spec: VariantSpec, where: Where, relays: (() => Promise<RelayHost>) | undefined): Promise<Session> {
  const { server, proxy } = await spawnBehindRelay(spec, where, [spec.build ? join(spec.build, 'raw-media-http.js') : RAW_HTTP_ENTRY], relays);
  const raw = new RawHttpClient(new URL(`http://127.0.0.1:${proxy.port}/`));
  return {
    spec,
    serverPid: server.pid!,
    clients: [raw as unknown as Client],
    bytes: proxy,
    lastError: () => undefined,
    server,
    close: async () => {
      await server.stop();
      await proxy.close();
    },
  };
}

async function startStdio(spec: VariantSpec, where: Where, mediaDir: string | undefined): Promise<Session> {
  const bytes = new ByteCounter();
  const args = serverArgs(spec, mediaDir);
  const errors: string[] = [];
  const client = newClient(errors);
  let transport: Transport;
  let pid: () => number | null;
  let server: WatchedChild | undefined;
  if (stockClient(spec)) {
    // Its stderr piped, for the tail a crash report shows. The official server greets on stderr, which is not
    // shown; ours say nothing unless something is wrong.
    const stock = new StdioClientTransport({ command: where.runtime, args, stderr: 'pipe' });
    transport = stock;
    pid = () => stock.pid;
    await stock.start();
    // The SDK spawns the child itself and offers no hook: count on its private process handle.
    const child = (stock as unknown as { _process?: ChildProcess })._process;
    if (!child) throw new Error('the SDK stdio transport did not expose its child process');
    server = watchServer(child, spec, where, stock.stderr as ChildProcess['stderr'], spec.server !== 'official');
    countChildStdio(child, bytes);
    // connect() calls start() again; make it a no-op now that the process runs.
    stock.start = async () => {};
  } else {
    // With an encoding policy, the client upgrades from JSON (wire 'auto') so the stream can turn mixed (SPEC.md 7.4).
    // On its defaults it is given neither: what it does then is whatever this version of the package does.
    const wire = spec.defaults ? {} : { wire: spec.encoding ? ('auto' as const) : spec.wire };
    const encoding = spec.encoding ? { encoding: spec.encoding } : {};
    // The transport is told its stderr is inherited; the hook pipes it, for the watch to keep its tail and echo it.
    const counting = countingSpawn(bytes);
    const spawnWatched = (command: string, spawnArgs: readonly string[], options: SpawnOptions): ChildProcess => {
      // Its stdin and stdout are the transport's pipes, as the transport asks for them.
      const child = counting(command, spawnArgs, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
      server = watchServer(child, spec, where);
      return child;
    };
    const ours = new StdioMsgpackClientTransport({ command: where.runtime, args, ...wire, ...encoding, stderr: 'inherit', spawn: spawnWatched, ...(spec.nativeBytes ? { nativeBytes: true } : {}) });
    transport = ours;
    pid = () => ours.pid;
  }
  await client.connect(transport);
  const serverPid = pid();
  if (!serverPid || !server) throw new Error(`${spec.label}: server process has no pid`);
  const watched: WatchedChild = server;
  return {
    spec,
    serverPid,
    clients: [client],
    bytes,
    lastError: () => errors.at(-1),
    server: watched,
    close: async () => {
      // The transport's close ends the child (its stdin, then its own SIGTERM and SIGKILL).
      watched.expectExit();
      await client.close().catch(() => {});
      await watched.stop();
    },
  };
}

async function startHttp(spec: VariantSpec, where: Where, mediaDir: string | undefined, relays: (() => Promise<RelayHost>) | undefined): Promise<Session> {
  const { server, proxy } = await spawnBehindRelay(spec, where, serverArgs(spec, mediaDir), relays);
  const url = new URL(`http://127.0.0.1:${proxy.port}/mcp`);
  const errors: string[] = [];
  const clients = Array.from({ length: spec.clients }, () => newClient(errors, spec));
  try {
    // All at once: 16 clients' initialize exchanges one after the other were seconds of a quick run.
    await Promise.all(clients.map((client) => client.connect(httpClientTransport(spec, url))));
  } catch (error) {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await server.stop('SIGKILL');
    await proxy.close();
    throw error;
  }
  return {
    spec,
    serverPid: server.pid!,
    clients,
    bytes: proxy,
    lastError: () => errors.at(-1),
    server,
    close: async () => {
      // The clients close first (their event streams end), then the bench's SIGTERM: a server that dies in
      // between died unasked (the zlib abort of d0f87d1 did, exactly there).
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await server.stop();
      await proxy.close();
    },
  };
}

/** Whether the variant's client is the SDK's own (JSON) transport: the stock stack, or a stock client of our server. */
export function stockClient(spec: VariantSpec): boolean {
  return spec.stack === 'stock' || spec.client === 'stock';
}

function httpClientTransport(spec: VariantSpec, url: URL): Transport {
  if (spec.stack === 'stock' && spec.server === 'tools-v2') return new StreamableHTTPClientTransportV2(url) as unknown as Transport;
  if (stockClient(spec)) return new StreamableHTTPClientTransport(url);
  if (spec.defaults) return new HttpMsgpackClientTransport(url, spec.nativeBytes ? { nativeBytes: true } : {});
  // The client's own requests follow the variant's policy too: MessagePack always means both directions.
  // The revision venue times calls, and its sessions never list tools: the tools/list prefetch of a
  // 2026-07-28 connection would be one unused request per session there (the link scenario times it).
  const noPrefetch = spec.revision === '2026-07-28' ? { prefetchToolsList: false } : {};
  return new HttpMsgpackClientTransport(url, { wire: spec.wire, ...noPrefetch, ...(spec.nativeBytes ? { nativeBytes: true } : {}), ...(spec.encoding ? { encoding: spec.encoding } : {}) });
}

/** The port a server child prints when ready; `kill` ends a child that is not ready in time. */
export function readyPort(child: ChildProcess, kill: () => void = () => child.kill('SIGKILL')): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error('server did not become ready within 20 s')), 20_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const match = /BENCH_READY (\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(Number(match[1]));
      }
    };
    const fail = (error: Error) => {
      clearTimeout(timer);
      kill();
      reject(error);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`server exited (code ${code}) before it was ready`)));
    child.once('error', fail);
  });
}
