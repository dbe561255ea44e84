import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { NATIVE_BYTES_CAPABILITY, callToolNative, configureNativeBytes, getPromptNative, nativeBytesPlaceholders, readResourceNative } from 'mcp-msgpack-transport';
import { clientTransport, countBase64, createMediaClient, inProcessPair, withTimeout, type InProcessPair } from './fixtures/native-helpers.js';
import { createNativeServer, digest, mediaBytes } from './fixtures/native-tools.js';

const MiB = 1024 * 1024;
const TEST_TIMEOUT = 60_000;

interface Setup {
  client: Client;
  pair: InProcessPair;
  sampling: ReturnType<typeof createMediaClient>['sampling'];
}

const open: Client[] = [];

async function connect(opts: { wire?: 'msgpack' | 'json'; client?: boolean | { negotiate: boolean }; server?: boolean | { negotiate: boolean }; answerBytes?: number } = {}): Promise<Setup> {
  const pair = inProcessPair(createNativeServer(), { nativeBytes: opts.server ?? true });
  const { client, sampling } = createMediaClient(opts.answerBytes ?? 1000);
  open.push(client);
  await withTimeout(client.connect(clientTransport(pair, opts.wire ?? 'msgpack', opts.client ?? true)), 10_000, 'connect');
  return { client, pair, sampling };
}

/** Same bytes, whatever the Uint8Array subclass (bins decode as Buffer on Node). */
function assertBytes(actual: unknown, expected: Uint8Array, what = 'bytes'): void {
  assert.ok(actual instanceof Uint8Array, `${what}: a Uint8Array, got ${typeof actual}`);
  assert.equal(actual.length, expected.length, `${what}: length`);
  assert.ok(Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(expected), `${what}: content`);
}

function imageOf(result: unknown): { data: unknown; mimeType: string } {
  const block = (result as { content: { type: string }[] }).content.find((b) => b.type === 'image');
  assert.ok(block, 'an image block');
  return block as unknown as { data: unknown; mimeType: string };
}

/** The server's frames that answer a request (have a result). */
function resultFrames(pair: InProcessPair) {
  return pair.toClient.frames().filter((f) => f.value.result !== undefined);
}

afterEach(async () => {
  configureNativeBytes({ ttlMs: 5 * 60_000, maxBytes: 512 * MiB });
  while (open.length > 0) await open.pop()!.close();
});
after(() => nativeBytesPlaceholders.clear());

describe('native bytes: negotiation', { timeout: TEST_TIMEOUT }, () => {
  it('turns on when a msgpack client offers it and the server confirms', async () => {
    const { client, pair } = await connect();
    assert.deepEqual(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], { version: 1 });
    const init = pair.toServer.frames()[0]!.value;
    assert.equal(init.method, 'initialize');
    assert.deepEqual(init.params.capabilities.experimental[NATIVE_BYTES_CAPABILITY], { version: 1 });
    // The client's own capabilities object is not changed by the offer.
    assert.equal((client as unknown as { _capabilities: { experimental?: unknown } })._capabilities.experimental, undefined);
  });

  it('stays off when the client does not offer it', async () => {
    const { client, pair } = await connect({ client: false });
    assert.equal(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], undefined);
    assert.equal(pair.toServer.frames()[0]!.value.params.capabilities.experimental, undefined);
  });

  it('stays off when the server does not confirm it (negotiate: false), and media still arrives as base64', async () => {
    const { client, pair } = await connect({ server: { negotiate: false } });
    assert.equal(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], undefined);
    const result = await client.callTool({ name: 'image', arguments: { bytes: 4096 } });
    assert.equal(imageOf(result).data, Buffer.from(mediaBytes(4096)).toString('base64'));
    assert.equal(typeof resultFrames(pair).at(-1)!.value.result.content[1].data, 'string');
  });

  it('is never offered on the JSON wire', async () => {
    const { client, pair } = await connect({ wire: 'json' });
    assert.equal(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], undefined);
    const firstLine = JSON.parse(pair.toServer.text().split('\n')[0]!);
    assert.equal(firstLine.params.capabilities.experimental, undefined);
  });
});

describe('native bytes: a large image tool', { timeout: TEST_TIMEOUT }, () => {
  const size = 3 * MiB + 17;
  const expected = mediaBytes(size);

  it('travels as one bin of the image size, not as base64 text', async () => {
    const { client, pair } = await connect();
    const result = await callToolNative(client, { name: 'image', arguments: { bytes: size } });
    assertBytes(imageOf(result).data, expected);
    const frame = resultFrames(pair).at(-1)!;
    const data = frame.value.result.content[1].data;
    assert.ok(data instanceof Uint8Array, 'the image is a MessagePack bin');
    assert.equal(data.length, size);
    assert.ok(frame.size < size + 256, `frame of ${frame.size} bytes for an image of ${size}`);
  });

  it('arrives as identical bytes in every mode', async () => {
    const base64 = Buffer.from(expected).toString('base64');
    for (const mode of [
      { wire: 'msgpack' as const, client: true },
      { wire: 'msgpack' as const, client: false },
      { wire: 'json' as const, client: true },
    ]) {
      const { client, pair } = await connect(mode);
      const what = JSON.stringify(mode);
      const plain = await client.callTool({ name: 'image', arguments: { bytes: size } });
      assert.equal(imageOf(plain).data, base64, `callTool, ${what}`);
      const native = await callToolNative(client, { name: 'image', arguments: { bytes: size } });
      assertBytes(imageOf(native).data, expected, `callToolNative, ${what}`);
      assert.ok(imageOf(native).data instanceof Uint8Array);
      if (mode.wire === 'msgpack' && !mode.client) {
        // Without the extension the frame carries base64: 4/3 of the image.
        const frame = resultFrames(pair).at(-1)!;
        assert.equal(typeof frame.value.result.content[1].data, 'string');
        assert.ok(frame.size > (size * 4) / 3, `frame of ${frame.size} bytes`);
      }
      await client.close();
    }
  });

  it('costs no base64 anywhere on the negotiated path (server and native client)', async () => {
    const { client } = await connect();
    const { result, calls } = await countBase64(() => callToolNative(client, { name: 'image', arguments: { bytes: size } }));
    assertBytes(imageOf(result).data, expected);
    assert.deepEqual(calls, []);
  });

  it('the spy does see base64 when the extension is off (control)', async () => {
    const { client } = await connect({ client: false });
    const { calls } = await countBase64(() => client.callTool({ name: 'image', arguments: { bytes: size } }));
    assert.ok(calls.includes('Buffer#toString(base64)'), `calls: ${calls.join(', ')}`);
  });

  it('hands the default-mode client base64 (one encode, on the client)', async () => {
    const { client } = await connect();
    const { result, calls } = await countBase64(() => client.callTool({ name: 'image', arguments: { bytes: size } }));
    assert.equal(imageOf(result).data, Buffer.from(expected).toString('base64'));
    // The client turns bin into base64 once; the SDK then checks it with atob. The server does neither.
    assert.deepEqual(calls.sort(), ['Buffer#toString(base64)', 'atob'].sort());
  });
});

describe('native bytes: every media field', { timeout: TEST_TIMEOUT }, () => {
  it('audio, embedded resource blobs and stock base64 in one tool result', async () => {
    const { client, pair } = await connect();
    const n = 5000;
    const result = await callToolNative(client, { name: 'media-mix', arguments: { bytes: n } });
    const [audio, resource, gif] = result.content as any[];
    assertBytes(audio.data, mediaBytes(n, 2));
    assertBytes(resource.resource.blob, mediaBytes(n, 3));
    assertBytes(gif.data, mediaBytes(n, 4));
    const wire = resultFrames(pair).at(-1)!.value.result.content;
    assert.ok(wire[0].data instanceof Uint8Array && wire[1].resource.blob instanceof Uint8Array);
    assert.equal(typeof wire[2].data, 'string', 'a handler that returns base64 itself is sent as is');
    const plain = await client.callTool({ name: 'media-mix', arguments: { bytes: n } });
    assert.equal((plain.content as any[])[1].resource.blob, Buffer.from(mediaBytes(n, 3)).toString('base64'));
  });

  it('resources/read with a blob', async () => {
    const { client, pair } = await connect();
    const n = MiB;
    const native = await readResourceNative(client, { uri: `media://image/${n}` });
    assertBytes((native.contents[0] as any).blob, mediaBytes(n, 6));
    assert.ok(resultFrames(pair).at(-1)!.value.result.contents[0].blob instanceof Uint8Array);
    const plain = await client.readResource({ uri: `media://image/${n}` });
    assert.equal((plain.contents[0] as any).blob, Buffer.from(mediaBytes(n, 6)).toString('base64'));
  });

  it('prompts/get with an image message', async () => {
    const { client } = await connect();
    const native = await getPromptNative(client, { name: 'show-image', arguments: { size: '70000' } });
    assertBytes((native.messages[1]!.content as any).data, mediaBytes(70000, 7));
    const plain = await client.getPrompt({ name: 'show-image', arguments: { size: '70000' } });
    assert.equal((plain.messages[1]!.content as any).data, Buffer.from(mediaBytes(70000, 7)).toString('base64'));
  });

  it('sampling: an image to the client in the request, and one back in the result, as bin both ways', async () => {
    const answer = 200_000;
    const { client, pair, sampling } = await connect({ answerBytes: answer });
    for (const native of [false, true]) {
      const result = await client.callTool({ name: 'sample-image', arguments: { bytes: 123_456, native } });
      const report = JSON.parse((result.content as any[])[0].text);
      assert.deepEqual(report, { kind: native ? 'bytes' : 'string', digest: digest(mediaBytes(answer, 9)) });
    }
    assert.deepEqual(sampling.seen, [
      { kind: 'string', digest: digest(mediaBytes(123_456, 5)) },
      { kind: 'string', digest: digest(mediaBytes(123_456, 5)) },
    ]);
    const request = pair.toClient.frames().find((f) => f.value.method === 'sampling/createMessage')!;
    assert.ok(request.value.params.messages[0].content.data instanceof Uint8Array, 'server to client: bin');
    const answers = pair.toServer.frames().filter((f) => f.value.result?.model === 'test-model');
    assert.equal(answers.length, 2);
    for (const a of answers) assert.equal(a.value.result.content.data.length, answer, 'client to server: bin');
  });

  it('sampling without the extension: base64 both ways, same bytes', async () => {
    const { client, pair, sampling } = await connect({ client: { negotiate: false }, answerBytes: 3000 });
    const result = await client.callTool({ name: 'sample-image', arguments: { bytes: 4000, native: true } });
    assert.deepEqual(JSON.parse((result.content as any[])[0].text), { kind: 'bytes', digest: digest(mediaBytes(3000, 9)) });
    assert.deepEqual(sampling.seen, [{ kind: 'string', digest: digest(mediaBytes(4000, 5)) }]);
    const answer = pair.toServer.frames().find((f) => f.value.result?.model === 'test-model')!;
    assert.equal(typeof answer.value.result.content.data, 'string');
  });
});

describe('native bytes: placeholders', { timeout: TEST_TIMEOUT }, () => {
  it('a result sent after its bytes expired becomes a clear error, and nothing is left behind', async () => {
    const { client } = await connect();
    configureNativeBytes({ ttlMs: 30 });
    await assert.rejects(client.callTool({ name: 'slow-image', arguments: { bytes: 1000, waitMs: 120 } }), (error: Error) => /native bytes for placeholder mcpNB\w+ are gone/.test(error.message));
    assert.deepEqual(nativeBytesPlaceholders.size, { entries: 0, bytes: 0 });
    // The connection goes on.
    const ok = await callToolNative(client, { name: 'image', arguments: { bytes: 10 } });
    assertBytes(imageOf(ok).data, mediaBytes(10));
  });

  it('bytes of a result that is never sent are dropped after the TTL', async () => {
    const { client } = await connect();
    configureNativeBytes({ ttlMs: 40 });
    const failed = await client.callTool({ name: 'register-then-fail', arguments: { bytes: 50_000 } });
    assert.equal(failed.isError, true);
    assert.equal(nativeBytesPlaceholders.size.bytes, 50_000, 'held until the TTL');
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.deepEqual(nativeBytesPlaceholders.size, { entries: 0, bytes: 0 });
  });

  it('sent results hold nothing afterwards', async () => {
    const { client } = await connect({ client: false });
    await client.callTool({ name: 'image', arguments: { bytes: 100_000 } });
    await callToolNative(client, { name: 'media-mix', arguments: { bytes: 100 } });
    assert.deepEqual(nativeBytesPlaceholders.size, { entries: 0, bytes: 0 });
  });

  it('media over the byte budget is refused with a clear tool error', async () => {
    const { client } = await connect();
    configureNativeBytes({ maxBytes: 1000 });
    const result = await client.callTool({ name: 'image', arguments: { bytes: 1001 } });
    assert.equal(result.isError, true);
    assert.match((result.content as any[])[0].text, /exceed the placeholder budget of 1000 bytes/);
  });
});
