import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { mediaBytes } from '../payloads.js';
import { formatBytes } from '../report/format.js';
import type { CallFunction } from '../runner/measure.js';
import type { CallScenario } from '../runner/rounds.js';
import type { RawHttpClient, RawPipeClient } from '../runner/raw-client.js';
import type { VariantSpec } from '../runner/variant.js';
import { callToolNative, readResourceNative } from 'mcp-msgpack-transport';
import { callTool, scenarioName, stockClientVariants, type Budget } from './calls.js';
import { stockClient } from '../runner/session.js';
import { onInterrupt } from '../interrupt.js';

export const MEDIA_SIZES = [
  { name: '1MiB', bytes: 1024 * 1024 },
  { name: '5MiB', bytes: 5 * 1024 * 1024 },
];

/** Writes the media files (incompressible bytes, .png so servers return image content) to a fresh directory. */
export function createMediaDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-msgpack-bench-media-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const forget = onInterrupt(remove);
  for (const { name, bytes } of MEDIA_SIZES) writeFileSync(join(dir, `bench-${name}.png`), mediaBytes(bytes));
  return {
    dir,
    remove: () => {
      forget();
      remove();
    },
  };
}

/** The bytes of a media content block or blob, as the application needs them (base64 decoded on JSON). */
export function bytesOf(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (typeof data === 'string') return Buffer.from(data, 'base64');
  throw new Error(`media data is neither bytes nor base64 text (${typeof data})`);
}

function checkSize(bytes: Uint8Array, expected: number): void {
  if (bytes.length !== expected) throw new Error(`media arrived with ${bytes.length} bytes, expected ${expected}`);
}

/**
 * How a client gets media: a stock client calls callTool / readResource and decodes the base64 itself; our
 * clients use the native helpers, which hand over a Uint8Array on every wire (decoding base64 on JSON), so
 * every variant ends with the bytes in hand.
 */
interface MediaClient {
  callTool(client: Client, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  readResource(client: Client, uri: string): Promise<{ contents: unknown[] }>;
}

const STOCK_CLIENT: MediaClient = {
  callTool: (client, args) => callTool(client, 'read_media_file', args),
  readResource: (client, uri) => client.readResource({ uri }),
};

const NATIVE_HELPERS: MediaClient = {
  callTool: async (client, args) => {
    const result = (await callToolNative(client, { name: 'read_media_file', arguments: args })) as Record<string, unknown>;
    if (result.isError) throw new Error(`read_media_file returned an error: ${JSON.stringify(result.content).slice(0, 300)}`);
    return result;
  },
  readResource: (client, uri) => readResourceNative(client, { uri }) as Promise<{ contents: unknown[] }>,
};

/** The raw baselines (no MCP: the pipe, the HTTP file server): the file's bytes, as the helpers would hand them over. */
const RAW_PIPE: MediaClient = {
  callTool: async (client, args) => ({ content: [{ data: await (client as unknown as RawPipeClient | RawHttpClient).read(args.path as string) }] }),
  readResource: () => Promise.reject(new Error('the raw pipe baseline has no resources')),
};

function mediaClientFor(variant: VariantSpec): MediaClient {
  if (variant.stack === 'raw') return RAW_PIPE;
  return stockClient(variant) ? STOCK_CLIENT : NATIVE_HELPERS;
}

/** read_media_file inline: the bytes in the tool result. */
function inlineCall(path: string, size: number, media: MediaClient): CallFunction {
  return async (client: Client) => {
    const result = await media.callTool(client, { path });
    const block = (result.content as Array<{ data?: unknown }>)[0];
    checkSize(bytesOf(block?.data), size);
  };
}

/** read_media_file as a resource_link, then resources/read for the bytes. */
function linkCall(path: string, size: number, media: MediaClient): CallFunction {
  return async (client: Client) => {
    const result = await media.callTool(client, { path, as: 'resource_link' });
    const link = (result.content as Array<{ type?: string; uri?: string }>)[0];
    if (link?.type !== 'resource_link' || !link.uri) throw new Error('read_media_file did not return a resource_link');
    const read = await media.readResource(client, link.uri);
    checkSize(bytesOf((read.contents[0] as { blob?: unknown } | undefined)?.blob), size);
  };
}

/**
 * Why the official server cannot send this file over stdio, if it cannot: its read_media_file puts the base64
 * in the reply twice (content and structuredContent), on one line, and the SDK's stdio client drops a line
 * over its buffer limit (then fails parsing what follows).
 */
export function officialStdioFailure(bytes: number): string | undefined {
  const line = 2 * Math.ceil(bytes / 3) * 4;
  if (line <= STDIO_DEFAULT_MAX_BUFFER_SIZE) return undefined;
  return `the official server sends the base64 twice (content and structuredContent), ${formatBytes(line)} on one line, over the SDK stdio client's ${formatBytes(STDIO_DEFAULT_MAX_BUFFER_SIZE)} line limit`;
}

/**
 * `withAdaptive`: over stdio too (full mode: quick mode's stdio media already has five 5 MiB variants).
 * `withStock`: our client on its defaults (native bytes on) against the SDK's own client, on our media server
 * on its defaults (over stdio the adaptive variant is ours on defaults, so it comes too).
 */
function mediaVariants(transport: 'stdio' | 'http', clients: number, withOfficial: boolean, withAdaptive = false, withStock = false): { variants: VariantSpec[]; comparisons: Array<[string, string]> } {
  const base = { transport, server: 'media' as const, clients: transport === 'stdio' ? 1 : clients };
  const variants: VariantSpec[] = [];
  const comparisons: Array<[string, string]> = [
    ['msgpack-native', 'json'],
    ['msgpack', 'json'],
  ];
  const name = transport === 'stdio' ? 'stdio' : 'HTTP';
  if (transport === 'stdio') {
    if (withOfficial) {
      variants.push({ ...base, server: 'official', id: 'official', label: 'official filesystem server (SDK stdio, JSON)', stack: 'stock', wire: 'json' });
      comparisons.push(['msgpack-native', 'official']);
      variants.push({ ...base, id: 'raw', label: 'raw length-prefixed bytes through the same pipe (no MCP)', stack: 'raw', wire: 'msgpack' });
      comparisons.push(['msgpack-native', 'raw']);
    }
  } else {
    variants.push(
      { ...base, id: 'stock-json', label: 'media server, SDK HTTP (JSON)', stack: 'stock', wire: 'json' },
      { ...base, id: 'json-gzip', label: 'media server, mcp-msgpack HTTP, JSON + gzip', stack: 'ours', wire: 'json', gzip: true },
    );
    comparisons.push(['msgpack-native', 'json-gzip'], ['msgpack-native', 'stock-json']);
    // The physical floor over HTTP (one client: its server answers one request at a time into one buffer).
    if (withOfficial && base.clients === 1) {
      variants.push({ ...base, id: 'raw', label: 'raw HTTP file server (no MCP, no codec: a POST names the file, one body of its bytes)', stack: 'raw', wire: 'msgpack' });
      comparisons.push(['msgpack-native', 'raw']);
    }
  }
  // Over HTTP, MessagePack always is the policy 'smallest' on both ends; over stdio, the MessagePack wire.
  const always = transport === 'http' ? { encoding: 'smallest' as const } : {};
  variants.push(
    { ...base, id: 'json', label: `media server, mcp-msgpack ${name}, JSON wire`, stack: 'ours', wire: 'json' },
    { ...base, id: 'msgpack', label: `media server, mcp-msgpack ${name}, MessagePack (base64 media)`, stack: 'ours', wire: 'msgpack', ...always },
    { ...base, id: 'msgpack-native', label: `media server, mcp-msgpack ${name}, MessagePack + native bytes`, stack: 'ours', wire: 'msgpack', nativeBytes: true, ...always },
  );
  if (transport === 'http' || withAdaptive || withStock) {
    // The default a user gets: native bytes, and each message in the encoding that costs less CPU (over
    // stdio, both transports on their defaults; over HTTP, replies in one body).
    const policy = transport === 'stdio' ? { defaults: true } : { encoding: 'cheapest-cpu' as const };
    variants.push({ ...base, id: 'adaptive', label: `media server, mcp-msgpack ${name}, per-message (cheapest CPU) + native bytes`, stack: 'ours', wire: 'msgpack', nativeBytes: true, ...policy });
    comparisons.push(['adaptive', 'json'], ['adaptive', 'msgpack-native']);
  }
  if (withStock) {
    const kept = stockClientVariants(transport, base, 'media server, ', { nativeBytes: true });
    variants.push(...kept.variants);
    comparisons.push(kept.comparison);
  }
  return { variants, comparisons };
}

/**
 * Quick mode keeps JSON, MessagePack with native bytes, the adaptive default and the stock client against
 * ours on defaults: the comparisons the targets and the summary rest on; over stdio the official server and
 * the raw pipe too. MessagePack with base64 media (in no target, not in the summary) and, over HTTP, JSON +
 * gzip (about a second per 5 MiB call) and the SDK's own server are --full's.
 */
function quickMediaVariants(set: ReturnType<typeof mediaVariants>, transport: 'stdio' | 'http', all: boolean): ReturnType<typeof mediaVariants> {
  if (all) return set;
  const keep = new Set(['json', 'msgpack-native', 'adaptive', 'defaults', 'stock-client', ...(transport === 'stdio' ? ['official', 'raw'] : [])]);
  return { variants: set.variants.filter((v) => keep.has(v.id)), comparisons: set.comparisons.filter(([c, b]) => keep.has(c) && keep.has(b)) };
}

/** Quick mode keeps the link scenarios to the one comparison they are about: JSON vs native bytes. */
function linkVariants(set: ReturnType<typeof mediaVariants>, full: boolean): ReturnType<typeof mediaVariants> {
  if (full) return set;
  return { variants: set.variants.filter((v) => v.id === 'json' || v.id === 'msgpack-native'), comparisons: [['msgpack-native', 'json']] };
}

/** Says so when a native-bytes variant carried base64 after all (the server did not hand over bytes). */
function nativeCheck(size: number): CallScenario['check'] {
  return (variant, values) => {
    if (!variant.nativeBytes || values.received === undefined) return undefined;
    return values.received > size * 1.2
      ? `${variant.label}: ${Math.round(values.received)} bytes per call reached the client for a ${size}-byte file: the media still travelled as base64 (the server did not send native bytes)`
      : undefined;
  };
}

/**
 * Venue 4: media through the filesystem media server: read_media_file inline, and as a resource_link
 * followed by resources/read. The official filesystem server is the stdio baseline a user runs today.
 */
export async function mediaScenarios(full: boolean, transport: 'stdio' | 'http', clients: number, httpOurs: boolean, budget: Budget, mediaDir: string | undefined, smoke = false): Promise<CallScenario[]> {
  if (!mediaDir || (transport === 'http' && !httpOurs)) return [];
  const scenarios: CallScenario[] = [];
  // The smoke test exercises every path once, on the small file only.
  for (const { name, bytes } of smoke ? MEDIA_SIZES.slice(0, 1) : MEDIA_SIZES) {
    const path = join(mediaDir, `bench-${name}.png`);
    const common = { kind: 'calls' as const, venue: 'media' as const, transport, clients: transport === 'stdio' ? 1 : clients, mediaDir, ...budget };
    scenarios.push({
      ...common,
      name: scenarioName(`media-${name}`, transport, clients),
      title: `read_media_file inline, ${name} image`,
      // Quick mode over stdio: the stock client at 1 MiB only (the SDK's stdio reader is slow on a 6.7 MiB line).
      ...quickMediaVariants(mediaVariants(transport, clients, true, full || smoke, full || smoke || transport === 'http' || name === '1MiB'), transport, full || smoke),
      call: inlineCall(path, bytes, STOCK_CLIENT),
      callFor: (variant) => inlineCall(path, bytes, mediaClientFor(variant)),
      check: nativeCheck(bytes),
      bestOf: [['adaptive', 'json', 'msgpack-native']],
      expectedFailure: (variant) => (variant.server === 'official' ? officialStdioFailure(bytes) : undefined),
    });
    if (full || smoke || name === '5MiB') {
      scenarios.push({
        ...common,
        name: scenarioName(`media-${name}-link`, transport, clients),
        title: `read_media_file as resource_link, then resources/read, ${name} image`,
        ...linkVariants(mediaVariants(transport, clients, false, full || smoke), full || smoke),
        call: linkCall(path, bytes, STOCK_CLIENT),
        callFor: (variant) => linkCall(path, bytes, mediaClientFor(variant)),
        check: nativeCheck(bytes),
        bestOf: [['adaptive', 'json', 'msgpack-native']],
      });
    }
  }
  return scenarios;
}
