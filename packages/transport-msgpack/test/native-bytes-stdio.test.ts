// The native-bytes extension across a real pipe: the test server runs as a child process (node or bun).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { NATIVE_BYTES_CAPABILITY, StdioMsgpackClientTransport, callToolNative, readResourceNative } from 'mcp-msgpack-transport';
import { createMediaClient, withTimeout } from './fixtures/native-helpers.js';
import { digest, mediaBytes } from './fixtures/native-tools.js';

const SERVER = fileURLToPath(new URL('./fixtures/native-server.js', import.meta.url));
const MiB = 1024 * 1024;
const SIZE = 5 * MiB;
const open: Client[] = [];

async function connect(transport: Transport, answerBytes = 1000): Promise<Client> {
  const { client } = createMediaClient(answerBytes);
  open.push(client);
  await withTimeout(client.connect(transport), 15_000, 'connect to the child server');
  return client;
}

function ours(options: { wire?: 'msgpack' | 'json' | 'auto'; nativeBytes?: boolean; serverNative?: boolean } = {}): StdioMsgpackClientTransport {
  return new StdioMsgpackClientTransport({
    command: process.execPath,
    args: [SERVER],
    wire: options.wire ?? 'msgpack',
    nativeBytes: options.nativeBytes ?? true,
    env: { NATIVE_BYTES: options.serverNative === false ? 'off' : 'on' },
  });
}

function imageData(result: unknown): unknown {
  return (result as { content: { type: string; data?: unknown }[] }).content.find((b) => b.type === 'image')?.data;
}

function sameBytes(actual: unknown, expected: Uint8Array): boolean {
  return actual instanceof Uint8Array && Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(expected);
}

async function heldPlaceholders(client: Client): Promise<unknown> {
  const result = await client.callTool({ name: 'placeholder-stats', arguments: {} });
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

describe('native bytes over stdio (child server)', { timeout: 120_000 }, () => {
  const expected = mediaBytes(SIZE);
  const base64 = Buffer.from(expected).toString('base64');

  for (const wire of ['msgpack', 'auto'] as const) {
    it(`${wire} client with the extension: a 5 MiB image, as bytes and as base64, identical`, async () => {
      const transport = ours({ wire });
      const client = await connect(transport);
      // On 'auto' the offer rode on the JSON initialize with the wire upgrade's, and is in force after the switch.
      assert.equal(transport.wire, 'msgpack');
      assert.deepEqual(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], { version: 1 });
      const native = await callToolNative(client, { name: 'image', arguments: { bytes: SIZE } });
      assert.ok(sameBytes(imageData(native), expected));
      const plain = await client.callTool({ name: 'image', arguments: { bytes: SIZE } });
      assert.equal(imageData(plain), base64);
      const resource = await readResourceNative(client, { uri: `media://image/${MiB}` });
      assert.ok(sameBytes((resource.contents[0] as { blob: unknown }).blob, mediaBytes(MiB, 6)));
      assert.deepEqual(await heldPlaceholders(client), { entries: 0, bytes: 0 });
    });
  }

  for (const [name, options] of [
    ['msgpack client without the extension', { nativeBytes: false }],
    ['msgpack client, server with negotiation off', { serverNative: false }],
    ['JSON wire client', { wire: 'json' as const }],
  ] as const) {
    it(`${name}: base64 on the wire, same bytes`, async () => {
      const client = await connect(ours(options));
      assert.equal(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], undefined);
      assert.equal(imageData(await client.callTool({ name: 'image', arguments: { bytes: SIZE } })), base64);
      assert.ok(sameBytes(imageData(await callToolNative(client, { name: 'image', arguments: { bytes: SIZE } })), expected));
      assert.deepEqual(await heldPlaceholders(client), { entries: 0, bytes: 0 });
    });
  }

  it('the stock SDK stdio client gets standard base64', async () => {
    const client = await connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], env: { NATIVE_BYTES: 'on' } }));
    assert.equal(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], undefined);
    assert.equal(imageData(await client.callTool({ name: 'image', arguments: { bytes: SIZE } })), base64);
    const mix = await client.callTool({ name: 'media-mix', arguments: { bytes: 1000 } });
    assert.equal((mix.content as { resource: { blob: string } }[])[1]!.resource.blob, Buffer.from(mediaBytes(1000, 3)).toString('base64'));
  });

  it('sampling with images both ways through the child', async () => {
    const client = await connect(ours(), 300_000);
    for (const native of [false, true]) {
      const result = await client.callTool({ name: 'sample-image', arguments: { bytes: 2 * MiB, native } });
      const report = JSON.parse((result.content as { text: string }[])[0]!.text);
      assert.deepEqual(report, { kind: native ? 'bytes' : 'string', digest: digest(mediaBytes(300_000, 9)) });
    }
  });
});
