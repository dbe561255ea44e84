// Reverse mode and media: a stock SDK v2 stdio JSON server writes base64; a client that negotiated native
// bytes gets the same media as MessagePack bin (decoded once, at the bridge), everyone else gets the child's
// base64 unchanged, and the child never hears of native bytes.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport, NATIVE_BYTES_CAPABILITY, NATIVE_BYTES_EXTENSION, nativeImage, readResourceNative } from 'mcp-msgpack-transport';
import { LIMIT, runBridge, waitFor, type RunningBridge } from './helpers/bridge.js';
import { recordingFetch, type RecordingFetch } from './helpers/recording-fetch.js';
import { AUDIO, IMAGE } from './fixtures/image.js';

const CHILD = fileURLToPath(new URL('./fixtures/json-stdio-server-v2.js', import.meta.url));
const RAW_CHILD = fileURLToPath(new URL('./fixtures/raw-json-stdio-server.js', import.meta.url));
const IMAGE_BASE64 = Buffer.from(IMAGE).toString('base64');

interface Block {
  type: string;
  text?: string;
  data?: string;
  resource?: { uri: string; blob?: string };
}

async function startServe(child = CHILD, extra: string[] = []): Promise<{ bridge: RunningBridge; url: URL }> {
  const bridge = runBridge(['--serve', ...extra, '--', process.execPath, child]);
  await waitFor(() => bridge.stdout().includes('\n') || bridge.child.exitCode !== null, 'the URL on stdout', LIMIT);
  assert.equal(bridge.child.exitCode, null, bridge.stderr());
  return { bridge, url: new URL(bridge.stdout().split('\n')[0]!.trim()) };
}

async function connect(
  url: URL,
  options: { nativeBytes: boolean; json?: boolean },
): Promise<{ client: Client; recording: RecordingFetch; transport: HttpMsgpackClientTransport | StreamableHTTPClientTransport }> {
  const recording = recordingFetch();
  const transport = options.json ? new StreamableHTTPClientTransport(url, { fetch: recording.fetch }) : new HttpMsgpackClientTransport(url, { nativeBytes: options.nativeBytes, fetch: recording.fetch });
  const client = new Client({ name: 'media-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
  // Our answer to the child's sampling request: an image, sent as bin when native bytes are on.
  client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', model: 'test', content: nativeImage(IMAGE, 'image/png') }));
  await client.connect(transport);
  return { client, recording, transport };
}

const bytesOf = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64');

/** Every media block of the child's `media` tool, checked byte for byte. */
function assertMedia(content: Block[]): void {
  assert.deepEqual(
    content.map((block) => block.type),
    ['image', 'audio', 'resource'],
  );
  assert.ok(bytesOf(content[0]!.data).equals(Buffer.from(IMAGE)), 'image bytes');
  assert.ok(bytesOf(content[1]!.data).equals(Buffer.from(AUDIO)), 'audio bytes');
  assert.ok(bytesOf(content[2]!.resource!.blob).equals(Buffer.from(IMAGE)), 'embedded blob bytes');
}

describe('reverse mode: media from a JSON child', () => {
  let bridge: RunningBridge;
  let url: URL;
  before(async () => ({ bridge, url } = await startServe()));
  after(() => bridge.stop());

  it('reaches a client with native bytes as MessagePack bin: raw image bytes on the wire, no base64', async () => {
    const { client, recording, transport } = await connect(url, { nativeBytes: true });
    try {
      // Announced to the client in the initialize result, under both keys.
      const capabilities = client.getServerCapabilities() as { extensions?: Record<string, unknown>; experimental?: Record<string, unknown> };
      assert.deepEqual(capabilities.extensions?.[NATIVE_BYTES_EXTENSION], { version: 1 });
      assert.deepEqual(capabilities.experimental?.[NATIVE_BYTES_CAPABILITY], { version: 1 });
      const before = recording.received().length;
      const result = await client.callTool({ name: 'media', arguments: {} }, { timeout: LIMIT });
      assertMedia(result.content as Block[]);
      assert.equal((transport as HttpMsgpackClientTransport).wire, 'msgpack');
      const wire = recording.received().subarray(before);
      assert.ok(wire.includes(Buffer.from(IMAGE)), 'the raw image bytes are on the wire');
      assert.ok(wire.includes(Buffer.from(AUDIO)), 'the raw audio bytes are on the wire');
      assert.ok(!wire.includes(Buffer.from(IMAGE_BASE64.slice(0, 200))), 'no base64 of the image on the wire');
      assert.ok(wire.length < IMAGE.length * 2 + AUDIO.length + 2_000, `the reply is the bytes, not text: ${wire.length} bytes`);
    } finally {
      await client.close();
    }
  });

  it('gives resources/read blobs as bin too, and the native helpers get the bytes themselves', async () => {
    const { client, recording } = await connect(url, { nativeBytes: true });
    try {
      const before = recording.received().length;
      const result = await readResourceNative(client, { uri: 'media://blob' }, { timeout: LIMIT });
      const blob = (result.contents[0] as { blob: unknown }).blob;
      assert.ok(blob instanceof Uint8Array, 'the blob arrives as bytes');
      assert.ok(Buffer.from(blob).equals(Buffer.from(IMAGE)));
      const wire = recording.received().subarray(before);
      assert.ok(wire.includes(Buffer.from(IMAGE)));
      assert.ok(!wire.includes(Buffer.from(IMAGE_BASE64.slice(0, 200))));
    } finally {
      await client.close();
    }
  });

  it('never shows the child the native-bytes offer', async () => {
    const { client } = await connect(url, { nativeBytes: true });
    try {
      const result = await client.callTool({ name: 'client-capabilities', arguments: {} }, { timeout: LIMIT });
      const seen = JSON.parse((result.content as Block[])[0]!.text!) as Record<string, unknown>;
      assert.deepEqual(seen.sampling, {}, 'the rest of the capabilities reach the child');
      assert.ok(!JSON.stringify(seen).includes('native-bytes'), `the child saw ${JSON.stringify(seen)}`);
    } finally {
      await client.close();
    }
  });

  it("turns a client's bin (a sampling answer) back into base64 for the child", async () => {
    const { client, recording } = await connect(url, { nativeBytes: true });
    try {
      const result = await client.callTool({ name: 'sample', arguments: {} }, { timeout: LIMIT });
      assert.equal((result.content as Block[])[0]!.text, 'string:true');
      assert.ok(recording.received().length > 0);
    } finally {
      await client.close();
    }
  });

  it("gives a client of ours without native bytes the child's base64 (on MessagePack)", async () => {
    const { client, recording, transport } = await connect(url, { nativeBytes: false });
    try {
      assert.equal(client.getServerCapabilities()?.extensions?.[NATIVE_BYTES_EXTENSION], undefined);
      const before = recording.responses.length;
      assertMedia((await client.callTool({ name: 'media', arguments: {} }, { timeout: LIMIT })).content as Block[]);
      assert.equal((transport as HttpMsgpackClientTransport).wire, 'msgpack');
      const reply = recording.responses.slice(before).find((response) => Buffer.concat(response.chunks).includes(Buffer.from(IMAGE_BASE64)));
      assert.ok(reply, "the child's base64 is on the wire as it wrote it");
      assert.ok(!Buffer.concat(reply.chunks).includes(Buffer.from(IMAGE)), 'and not the raw bytes');
    } finally {
      await client.close();
    }
  });

  it("gives the SDK's stock JSON client the child's messages unchanged", async () => {
    const { client, recording } = await connect(url, { nativeBytes: false, json: true });
    try {
      assert.equal(client.getServerCapabilities()?.extensions?.[NATIVE_BYTES_EXTENSION], undefined);
      const before = recording.responses.length;
      assertMedia((await client.callTool({ name: 'media', arguments: {} }, { timeout: LIMIT })).content as Block[]);
      const replies = recording.responses.slice(before);
      assert.ok(
        replies.every((response) => !/msgpack/.test(response.contentType)),
        replies.map((r) => r.contentType).join(),
      );
      assert.ok(Buffer.concat(replies.flatMap((response) => response.chunks)).includes(Buffer.from(IMAGE_BASE64)));
    } finally {
      await client.close();
    }
  });
});

describe('reverse mode: media from a --shared child', () => {
  let bridge: RunningBridge;
  let url: URL;
  before(async () => ({ bridge, url } = await startServe(CHILD, ['--shared'])));
  after(() => bridge.stop());

  it("gives each session what it negotiated: bin to ours, the child's base64 to the SDK's client", async () => {
    const ours = await connect(url, { nativeBytes: true });
    const stock = await connect(url, { nativeBytes: false, json: true });
    try {
      // The second session's initialize is answered from the first one's: each still gets its own capabilities.
      assert.deepEqual((ours.client.getServerCapabilities() as { extensions?: Record<string, unknown> }).extensions?.[NATIVE_BYTES_EXTENSION], { version: 1 });
      assert.equal(stock.client.getServerCapabilities()?.extensions?.[NATIVE_BYTES_EXTENSION], undefined);
      const [a, b] = [ours.recording.received().length, stock.recording.received().length];
      const [mediaA, mediaB] = await Promise.all([ours.client.callTool({ name: 'media', arguments: {} }, { timeout: LIMIT }), stock.client.callTool({ name: 'media', arguments: {} }, { timeout: LIMIT })]);
      assertMedia(mediaA.content as Block[]);
      assertMedia(mediaB.content as Block[]);
      assert.ok(ours.recording.received().subarray(a).includes(Buffer.from(IMAGE)), 'bin to ours');
      const stockWire = stock.recording.received().subarray(b);
      assert.ok(stockWire.includes(Buffer.from(IMAGE_BASE64)) && !stockWire.includes(Buffer.from(IMAGE)), "base64 to the SDK's client");
    } finally {
      await ours.client.close();
      await stock.client.close();
    }
  });
});

describe('reverse mode: media that is not base64', () => {
  let bridge: RunningBridge;
  let url: URL;
  before(async () => ({ bridge, url } = await startServe(RAW_CHILD)));
  after(() => bridge.stop());

  it('passes it on as the child wrote it, says so once on stderr, and keeps serving', async () => {
    // The bare transport: the SDK's Client would refuse such a result itself, which is its right.
    const transport = new HttpMsgpackClientTransport(url, { nativeBytes: true });
    const answers = new Map<number, { result?: { content?: Block[] } }>();
    transport.onmessage = (message) => void ('id' in message && answers.set(message.id as number, message as never));
    await transport.start();
    const ask = async (id: number, method: string, params: Record<string, unknown>) => {
      await transport.send({ jsonrpc: '2.0', id, method, params } as never);
      await waitFor(() => answers.has(id), `the answer to ${method}`, LIMIT);
      return answers.get(id)!;
    };
    try {
      const init = await ask(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: { extensions: { [NATIVE_BYTES_EXTENSION]: { version: 1 } } }, clientInfo: { name: 'raw', version: '1.0.0' } });
      assert.ok(JSON.stringify(init).includes(NATIVE_BYTES_EXTENSION), 'native bytes negotiated');
      await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as never);
      for (const id of [2, 3]) {
        const answer = await ask(id, 'tools/call', { name: 'not-base64', arguments: {} });
        assert.equal(answer.result?.content?.[0]?.data, 'this is *not* base64!', JSON.stringify(answer));
        // Line breaks are not strict base64 either: as written, not half-decoded.
        assert.equal(answer.result?.content?.[1]?.data, 'QUJD\nREVG');
      }
      // Good media in the same session still arrive (as bin, made base64 again by the bare transport).
      const media = await ask(4, 'tools/call', { name: 'image', arguments: {} });
      assert.ok(bytesOf(media.result?.content?.[0]?.data).equals(Buffer.from(IMAGE)));
      assert.equal(bridge.stderr().match(/not valid base64/g)?.length, 1, bridge.stderr());
    } finally {
      await transport.terminateSession().catch(() => {});
      await transport.close();
    }
  });
});
