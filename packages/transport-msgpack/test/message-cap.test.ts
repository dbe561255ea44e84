// One name for the message size cap, `maxMessageBytes`, in every reader and transport, stdio and HTTP, both
// roles; the names it replaced (maxFrameBytes, maxLineBytes, maxRequestBodySize) still work, deprecated.
// (The stdio transports' maxMessageBytes is tested in stdio-faults-*.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FramingError, HttpMsgpackClientTransport, WebHttpMsgpackServerTransport, type JSONRPCMessage } from 'mcp-msgpack-transport';
import { FrameReader, LineReader, MSGPACK_STREAM_MEDIA_TYPE } from 'mcp-msgpack-transport/wire';

const header = (length: number) => new Uint8Array([length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff]);
const tooLarge = (e: unknown) => e instanceof FramingError && e.code === 'frame-too-large';
const tooLong = (e: unknown) => e instanceof FramingError && e.code === 'line-too-long';

describe('maxMessageBytes in the wire readers', () => {
  it('caps a frame, under its new name and its deprecated one; the new name wins', () => {
    assert.doesNotThrow(() => new FrameReader({ maxMessageBytes: 16 }).push(header(16), () => {}));
    assert.throws(() => new FrameReader({ maxMessageBytes: 16 }).push(header(17), () => {}), tooLarge);
    assert.throws(() => new FrameReader({ maxFrameBytes: 16 }).push(header(17), () => {}), tooLarge);
    assert.doesNotThrow(() => new FrameReader({ maxMessageBytes: 32, maxFrameBytes: 16 }).push(header(17), () => {}));
    assert.equal(new FrameReader({ maxFrameBytes: 16 }).maxMessageBytes, 16);
  });

  it('caps a JSON line, under its new name and its deprecated one; the new name wins', () => {
    const line = new TextEncoder().encode('x'.repeat(17) + '\n');
    assert.doesNotThrow(() => new LineReader({ maxMessageBytes: 17 }).push(line, () => {}));
    assert.throws(() => new LineReader({ maxMessageBytes: 16 }).push(line, () => {}), tooLong);
    assert.throws(() => new LineReader({ maxLineBytes: 16 }).push(line, () => {}), tooLong);
    assert.doesNotThrow(() => new LineReader({ maxMessageBytes: 32, maxLineBytes: 16 }).push(line, () => {}));
  });
});

describe('maxMessageBytes on the HTTP server', () => {
  const post = (bytes: number) =>
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(bytes) },
      body: ' '.repeat(bytes),
    });
  // A body under the cap gets past the size check: a blank body then fails as JSON (400), not as too large.
  // Stateless, so one transport per request.
  const statusOf = async (options: ConstructorParameters<typeof WebHttpMsgpackServerTransport>[0], bytes: number) => {
    const transport = new WebHttpMsgpackServerTransport(options);
    await transport.start();
    const { status } = await transport.handleRequest(post(bytes));
    await transport.close();
    return status;
  };
  const statuses = async (options: ConstructorParameters<typeof WebHttpMsgpackServerTransport>[0]) => [await statusOf(options, 1000), await statusOf(options, 1001)];

  it('answers 413 above it', async () => {
    assert.deepEqual(await statuses({ sessionIdGenerator: undefined, maxMessageBytes: 1000 }), [400, 413]);
  });

  it('takes the deprecated maxRequestBodySize as the same cap; the new name wins', async () => {
    assert.deepEqual(await statuses({ sessionIdGenerator: undefined, maxRequestBodySize: 1000 }), [400, 413]);
    assert.deepEqual(await statuses({ sessionIdGenerator: undefined, maxMessageBytes: 1000, maxRequestBodySize: 10 }), [400, 413]);
  });

  it('refuses a cap that is not a positive number, naming the option', () => {
    assert.throws(() => new WebHttpMsgpackServerTransport({ maxMessageBytes: 0 }), /maxMessageBytes must be a positive number/);
  });
});

describe('maxMessageBytes on the HTTP client', () => {
  /** The error the client reports for a MessagePack reply stream whose first frame announces `length` bytes. */
  async function errorFor(options: { maxMessageBytes?: number; maxFrameBytes?: number }, length: number): Promise<string> {
    const reply = () =>
      new Response(new Uint8Array([...header(length), ...new Uint8Array(length)]), { status: 200, headers: { 'content-type': MSGPACK_STREAM_MEDIA_TYPE } });
    const transport = new HttpMsgpackClientTransport(new URL('http://127.0.0.1:1/mcp'), { wire: 'msgpack', fetch: async () => reply(), ...options });
    const reported = new Promise<string>((resolve) => {
      transport.onerror = (error) => resolve(error.message);
      // A frame within the cap is a message (malformed here, so a payload error): proof the cap let it through.
      transport.onmessage = () => resolve('message');
    });
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' } as JSONRPCMessage);
    const message = await reported;
    await transport.close();
    return message;
  }

  it('ends a reply stream whose frame is over it', async () => {
    assert.match(await errorFor({ maxMessageBytes: 64 }, 65), /frame-too-large|over the 64-byte cap/);
    assert.doesNotMatch(await errorFor({ maxMessageBytes: 64 }, 64), /over the 64-byte cap/);
  });

  it('takes the deprecated maxFrameBytes as the same cap; the new name wins', async () => {
    assert.match(await errorFor({ maxFrameBytes: 64 }, 65), /over the 64-byte cap/);
    assert.doesNotMatch(await errorFor({ maxMessageBytes: 128, maxFrameBytes: 64 }, 65), /over the 64-byte cap/);
  });
});
