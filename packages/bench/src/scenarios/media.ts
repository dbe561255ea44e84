import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mediaBytes } from '../payloads.js';
import type { CallFunction } from '../runner/measure.js';
import type { CallScenario } from '../runner/rounds.js';
import type { VariantSpec } from '../runner/variant.js';
import { callTool, scenarioName, type Budget } from './calls.js';

export const MEDIA_SIZES = [
  { name: '1MiB', bytes: 1024 * 1024 },
  { name: '5MiB', bytes: 5 * 1024 * 1024 },
];

/** Writes the media files (incompressible bytes, .png so servers return image content) to a fresh directory. */
export function createMediaDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-msgpack-bench-media-'));
  for (const { name, bytes } of MEDIA_SIZES) writeFileSync(join(dir, `bench-${name}.png`), mediaBytes(bytes));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
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

/** read_media_file inline: the bytes in the tool result. */
function inlineCall(path: string, size: number): CallFunction {
  return async (client: Client) => {
    const result = await callTool(client, 'read_media_file', { path });
    const block = (result.content as Array<{ data?: unknown }>)[0];
    checkSize(bytesOf(block?.data), size);
  };
}

/** read_media_file as a resource_link, then resources/read for the bytes. */
function linkCall(path: string, size: number): CallFunction {
  return async (client: Client) => {
    const result = await callTool(client, 'read_media_file', { path, as: 'resource_link' });
    const link = (result.content as Array<{ type?: string; uri?: string }>)[0];
    if (link?.type !== 'resource_link' || !link.uri) throw new Error('read_media_file did not return a resource_link');
    const read = await client.readResource({ uri: link.uri });
    checkSize(bytesOf((read.contents[0] as { blob?: unknown } | undefined)?.blob), size);
  };
}

function mediaVariants(transport: 'stdio' | 'http', clients: number, withOfficial: boolean): { variants: VariantSpec[]; comparisons: Array<[string, string]> } {
  const base = { transport, server: 'media' as const, clients: transport === 'stdio' ? 1 : clients };
  const variants: VariantSpec[] = [];
  const comparisons: Array<[string, string]> = [['msgpack', 'json']];
  if (transport === 'stdio') {
    if (withOfficial) {
      variants.push({ ...base, server: 'official', id: 'official', label: 'official filesystem server (SDK stdio, JSON)', stack: 'stock', wire: 'json' });
      comparisons.push(['msgpack', 'official']);
    }
    variants.push(
      { ...base, id: 'json', label: 'media server, mcp-msgpack stdio, JSON wire', stack: 'ours', wire: 'json' },
      { ...base, id: 'msgpack', label: 'media server, mcp-msgpack stdio, MessagePack', stack: 'ours', wire: 'msgpack' },
    );
  } else {
    variants.push(
      { ...base, id: 'stock-json', label: 'media server, SDK HTTP (JSON)', stack: 'stock', wire: 'json' },
      { ...base, id: 'json', label: 'media server, mcp-msgpack HTTP, JSON wire', stack: 'ours', wire: 'json' },
      { ...base, id: 'json-gzip', label: 'media server, mcp-msgpack HTTP, JSON + gzip', stack: 'ours', wire: 'json', gzip: true },
      { ...base, id: 'msgpack', label: 'media server, mcp-msgpack HTTP, MessagePack', stack: 'ours', wire: 'msgpack' },
    );
    comparisons.push(['msgpack', 'json-gzip'], ['msgpack', 'stock-json']);
  }
  return { variants, comparisons };
}

/**
 * Venue 4: media through the filesystem media server: read_media_file inline, and as a resource_link
 * followed by resources/read. The official filesystem server is the stdio baseline a user runs today.
 */
export async function mediaScenarios(
  full: boolean,
  transport: 'stdio' | 'http',
  clients: number,
  httpOurs: boolean,
  budget: Budget,
  mediaDir: string | undefined,
): Promise<CallScenario[]> {
  if (!mediaDir || (transport === 'http' && !httpOurs)) return [];
  const scenarios: CallScenario[] = [];
  for (const { name, bytes } of MEDIA_SIZES) {
    const path = join(mediaDir, `bench-${name}.png`);
    const common = { kind: 'calls' as const, venue: 'media' as const, transport, clients: transport === 'stdio' ? 1 : clients, mediaDir, ...budget };
    scenarios.push({
      ...common,
      name: scenarioName(`media-${name}`, transport, clients),
      title: `read_media_file inline, ${name} image`,
      ...mediaVariants(transport, clients, true),
      call: inlineCall(path, bytes),
    });
    if (full || name === '5MiB') {
      scenarios.push({
        ...common,
        name: scenarioName(`media-${name}-link`, transport, clients),
        title: `read_media_file as resource_link, then resources/read, ${name} image`,
        ...mediaVariants(transport, clients, false),
        call: linkCall(path, bytes),
      });
    }
  }
  return scenarios;
}
