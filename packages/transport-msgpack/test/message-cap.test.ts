// One name for the message size cap, `maxMessageBytes`, in every reader and transport, stdio and HTTP, both
// roles; the names it replaced (maxFrameBytes, maxLineBytes, maxRequestBodySize) still work, deprecated.
// (The stdio transports' maxMessageBytes is tested in stdio-faults-*.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { FramingError, HttpMsgpackClientTransport, McpHttpHandler, StdioMsgpackClientTransport, StdioMsgpackServerTransport, WebHttpMsgpackServerTransport, type JSONRPCMessage } from 'mcp-msgpack-transport';
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
    assert.throws(() => new WebHttpMsgpackServerTransport({ maxMessageBytes: 0 }), /maxMessageBytes must be a whole number from 1/);
  });
});

describe('maxMessageBytes on the HTTP client', () => {
  /** The error the client reports for a MessagePack reply stream whose first frame announces `length` bytes. */
  async function errorFor(options: { maxMessageBytes?: number; maxFrameBytes?: number }, length: number): Promise<string> {
    const reply = () => new Response(new Uint8Array([...header(length), ...new Uint8Array(length)]), { status: 200, headers: { 'content-type': MSGPACK_STREAM_MEDIA_TYPE } });
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

describe('receive limits, checked once when a transport is made', () => {
  // Each transport's options extend ReceiveLimits; a bad value is a RangeError naming the option at once,
  // where before a NaN cap on stdio switched the frame reader's check off (`length > NaN` is never true).
  const makers: Record<string, (limits: object) => unknown> = {
    'stdio server': (limits) => new StdioMsgpackServerTransport(new PassThrough(), new PassThrough(), limits),
    'stdio client': (limits) => new StdioMsgpackClientTransport({ command: 'unused', ...limits }),
    'HTTP server transport': (limits) => new WebHttpMsgpackServerTransport(limits),
    'HTTP handler': (limits) => new McpHttpHandler({ createServer: () => ({ connect: async () => {} }) as never, ...limits }),
    'HTTP client': (limits) => new HttpMsgpackClientTransport(new URL('http://127.0.0.1:1/mcp'), limits),
    'frame reader': (limits) => new FrameReader(limits),
  };
  const bad: Array<[object, RegExp]> = [
    [{ maxMessageBytes: Number.NaN }, /maxMessageBytes must be a whole number .*got NaN/],
    [{ maxMessageBytes: -1 }, /maxMessageBytes .*got -1/],
    [{ maxMessageBytes: 1.5 }, /maxMessageBytes .*got 1.5/],
    [{ maxMessageBytes: '1000' }, /maxMessageBytes .*got "1000"/],
    [{ maxFrameBytes: Number.NaN }, /maxFrameBytes .*got NaN/],
  ];
  const badDecoding: Array<[object, RegExp]> = [
    [{ maxDepth: 0 }, /maxDepth must be a whole number from 1/],
    [{ maxDepth: Number.NaN }, /maxDepth .*got NaN/],
    [{ decodeBudget: { bytesPerContainer: 0 } }, /decodeBudget.bytesPerContainer must be a positive number, got 0/],
    [{ decodeBudget: { base: -5 } }, /decodeBudget.base .*got -5/],
  ];

  for (const [name, make] of Object.entries(makers)) {
    it(`${name}: a RangeError naming the option`, () => {
      for (const [limits, message] of name === 'frame reader' ? bad : [...bad, ...badDecoding]) {
        assert.throws(
          () => make(limits),
          (error: unknown) => error instanceof RangeError && message.test(error.message),
          JSON.stringify(limits),
        );
      }
      if (name !== 'frame reader') assert.doesNotThrow(() => make({ maxMessageBytes: 1024, maxDepth: 16, decodeBudget: { base: Number.POSITIVE_INFINITY, bytesPerContainer: 4 } }));
    });
  }
});

describe("the HTTP client's cap on one-body replies and JSON event streams", () => {
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/list' } as JSONRPCMessage;
  const result = (pad: number) => JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [], _meta: { pad: 'x'.repeat(pad) } } });
  const client = (reply: () => Response, maxMessageBytes: number) => new HttpMsgpackClientTransport(new URL('http://127.0.0.1:1/mcp'), { wire: 'json', fetch: async () => reply(), maxMessageBytes });

  it('refuses a one-body reply over it with an error naming the cap; one at the cap is read', async () => {
    const body = result(100);
    const size = new TextEncoder().encode(body).byteLength;
    for (const declared of [true, false]) {
      const reply = () => {
        // Without Content-Length the body is counted as it arrives.
        const stream = new Response(body).body!;
        return new Response(declared ? body : stream, { status: 200, headers: { 'content-type': 'application/json' } });
      };
      const over = client(reply, size - 1);
      await over.start();
      await assert.rejects(over.send(request), (error: unknown) => error instanceof FramingError && error.code === 'message-too-large' && error.message.includes(`maxMessageBytes cap of ${size - 1} bytes`));
      await over.close();
      const at = client(reply, size);
      const received: JSONRPCMessage[] = [];
      at.onmessage = (message) => received.push(message);
      await at.start();
      await at.send(request);
      assert.equal(received.length, 1);
      await at.close();
    }
  });

  it('reads a body of a declared length whole, and still refuses one over the cap whatever it declares or however it is coded', async () => {
    const body = result(100);
    const size = new TextEncoder().encode(body).byteLength;
    const refusedAt = async (headers: Record<string, string>, maxMessageBytes: number, text = body) => {
      const over = client(() => new Response(text, { status: 200, headers: { 'content-type': 'application/json', ...headers } }), maxMessageBytes);
      await over.start();
      await assert.rejects(over.send(request), (error: unknown) => error instanceof FramingError && error.code === 'message-too-large' && error.message.includes(`cap of ${maxMessageBytes} bytes`));
      await over.close();
    };
    // A gzip body declares its coded length, and fetch hands over the decoded bytes: the length says nothing of them.
    await refusedAt({ 'content-length': '10', 'content-encoding': 'gzip' }, size - 1);
    // A caller's fetch that declares less than it delivers.
    await refusedAt({ 'content-length': '10' }, size - 1);
    // Its text fits the cap in characters, not in UTF-8 bytes (a euro sign is three).
    const euros = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [], _meta: { pad: '\u20ac'.repeat(100) } } });
    await refusedAt({ 'content-length': '10' }, euros.length + 10, euros);
    const at = client(() => new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(size), 'content-encoding': 'identity' } }), size);
    const received: JSONRPCMessage[] = [];
    at.onmessage = (message) => received.push(message);
    await at.start();
    await at.send(request);
    assert.deepEqual(received, [JSON.parse(body)]);
    await at.close();
  });

  it('drops a JSON stream whose event is over it, reporting the cap', async () => {
    const event = `event: message\ndata: ${result(200)}\n\n`;
    const reply = () => new Response(event, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const over = client(reply, 100);
    const reported = new Promise<Error>((resolve) => (over.onerror = resolve));
    let delivered = 0;
    over.onmessage = () => delivered++;
    await over.start();
    await over.send(request);
    assert.match((await reported).message, /message-too-large|maxMessageBytes cap of 100/);
    assert.equal(delivered, 0);
    await over.close();
    const at = client(reply, event.length);
    const received = new Promise<JSONRPCMessage>((resolve) => (at.onmessage = resolve));
    await at.start();
    await at.send(request);
    assert.equal(((await received) as { id: number }).id, 1);
    await at.close();
  });
});
