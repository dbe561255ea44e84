// SPEC.md "Bad input", on the stdio server transport: bytes fed into its stdin, replies read from its stdout.
// Framing errors -> onerror(FramingError), then onclose. Payload errors -> onerror(PayloadError), a JSON-RPC
// error reply when the request id can be read, and the connection goes on (the next ping is answered).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { FramingError, PayloadError } from 'mcp-msgpack-transport';
import { frame, frameOf, HUGE_NESTED_HEADERS, nestedArrays, PROTO_MAP, REGEXP_EXT, requestWithRawParams } from './fixtures/stdio-bytes.js';
import { faultHarness, type FaultHarness } from './fixtures/stdio-fault-harness.js';
import { seededRandom, waitUntil, withTimeout } from './fixtures/stdio-helpers.js';

const TEST = { timeout: 20_000 };

interface AnsweredRefusal {
  name: string;
  payload: Uint8Array;
  code: string;
  answer: { id: number; code: number };
}

/** The refuse/ fixtures whose source says how a receiver answers them (fixtures/README.md, `answer`). */
function refusalsWithAnswers(): AnsweredRefusal[] {
  return refusals.filter((r): r is AnsweredRefusal => r.answer !== undefined);
}

const notation = (await import(new URL('../../../../fixtures/notation.mjs', import.meta.url).href)) as {
  loadRefusals(): Array<Omit<AnsweredRefusal, 'answer'> & { answer?: AnsweredRefusal['answer'] }>;
};
const refusals = notation.loadRefusals();
let open: FaultHarness | undefined;
afterEach(async () => {
  await open?.close().catch(() => {});
  open = undefined;
});

async function harness(...args: Parameters<typeof faultHarness>): Promise<FaultHarness> {
  open = await faultHarness(...args);
  return open;
}

function assertOnly(errors: Error[], kind: typeof FramingError | typeof PayloadError, code: string): void {
  assert.equal(errors.length, 1, `one error expected, got: ${errors.map((e) => `${e.name}: ${e.message}`).join('; ')}`);
  assert.ok(errors[0] instanceof kind, `${errors[0]!.name} should be a ${kind.name}`);
  assert.equal((errors[0] as FramingError | PayloadError).code, code);
}

describe('stdio server transport, msgpack-v1: framing errors close the connection', () => {
  it('a truncated frame then EOF: messages before it are answered, then FramingError and onclose', TEST, async () => {
    const h = await harness('msgpack');
    h.stdin.write(frameOf({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    h.stdin.end(Buffer.concat([Buffer.from([0, 0, 0, 100]), Buffer.alloc(10, 0x90)]));
    await h.waitClosed();
    assert.deepEqual((await h.reply(1)).result, {});
    assertOnly(h.errors, FramingError, 'truncated-frame');
    assert.match(h.errors[0]!.message, /10 of 100 payload bytes/);
  });

  it('a header over the cap: FramingError and onclose at once, nothing after it is read', TEST, async () => {
    const h = await harness('msgpack', { maxMessageBytes: 1024 });
    h.stdin.write(Buffer.from([0, 0, 0x04, 0x01]));
    await h.waitClosed();
    assertOnly(h.errors, FramingError, 'frame-too-large');
    assert.match(h.errors[0]!.message, /1025 bytes, over the 1024-byte cap/);
    // The stream cannot be resynchronised: a good frame after the bad header is not read.
    h.stdin.write(frameOf({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(h.replies, []);
  });

  it('a header over the default 64 MiB cap allocates nothing', TEST, async () => {
    const h = await harness('msgpack');
    const before = process.memoryUsage().rss;
    h.stdin.write(Buffer.from([0x04, 0x00, 0x00, 0x01, 1, 2, 3]));
    await h.waitClosed();
    assertOnly(h.errors, FramingError, 'frame-too-large');
    assert.ok(process.memoryUsage().rss - before < 48 * 1024 * 1024, 'no 64 MiB buffer was allocated');
  });
});

describe('stdio server transport, msgpack-v1: payload errors are answered and the connection goes on', () => {
  it('a zero-length frame: PayloadError, then the next request works', TEST, async () => {
    const h = await harness('msgpack');
    h.stdin.write(frame([]));
    assert.deepEqual((await h.ping(1)).result, {});
    assertOnly(h.errors, PayloadError, 'empty-payload');
    assert.equal(h.isClosed(), false);
  });

  it('valid MessagePack that is not JSON-RPC, with an id: -32600 for that id', TEST, async () => {
    const h = await harness('msgpack');
    h.stdin.write(frameOf({ jsonrpc: '2.0', id: 7, method: 42 }));
    const reply = await h.reply(7);
    assert.equal(reply.error?.code, -32600);
    assert.match(reply.error!.message, /method must be a string/);
    assert.deepEqual((await h.ping(8)).result, {});
    assertOnly(h.errors, PayloadError, 'not-json-rpc');
  });

  it('each refuse/ fixture that names an answer is answered so: its id, its JSON-RPC code, its reason (SPEC.md 4.3, 5.2)', TEST, async () => {
    const answered = refusalsWithAnswers();
    assert.ok(answered.length > 0, 'fixtures/refuse/ pins at least one answer');
    const h = await harness('msgpack');
    for (const refusal of answered) {
      h.stdin.write(frame(refusal.payload));
      const reply = await h.reply(refusal.answer.id);
      assert.equal(reply.error?.code, refusal.answer.code, refusal.name);
      assert.deepEqual(reply.error?.data, { reason: refusal.code }, refusal.name);
    }
    assert.deepEqual((await h.ping(1_000_000)).result, {});
  });

  it('a request whose id is in flight on the connection: -32600 at once, the first completes, a cancel frees the id', TEST, async () => {
    const h = await harness('msgpack');
    const call = (id: number, name: string, args: object) => frameOf({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    // One chunk: the second arrives while the first is still being handled.
    h.stdin.write(Buffer.concat([call(6, 'progress', { steps: 3 }), call(6, 'echo', { text: 'twin' })]));
    await waitUntil(() => h.replies.filter((r) => r.id === 6).length === 2, 5000, 'both answers');
    const [refused, answered] = [h.replies.find((r) => r.id === 6 && r.error), h.replies.find((r) => r.id === 6 && r.result)];
    assert.equal(refused?.error?.code, -32600);
    assert.deepEqual(refused?.error?.data, { reason: 'duplicate-id' });
    assert.match(refused!.error!.message, /request id 6 is already in flight on this connection/);
    assert.deepEqual((answered!.result as { content: unknown }).content, [{ type: 'text', text: 'done' }]);
    // Answered, the id is free again; cancelled (the SDK sends no answer then), too.
    h.stdin.write(call(6, 'echo', { text: 'again' }));
    await waitUntil(() => h.replies.filter((r) => r.id === 6).length === 3, 5000, 'the reused id');
    h.stdin.write(call(9, 'slow', {}));
    h.stdin.write(frameOf({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }));
    h.stdin.write(call(9, 'echo', { text: 'after cancel' }));
    const reply = await h.reply(9);
    assert.deepEqual((reply.result as { content: unknown }).content, [{ type: 'text', text: 'after cancel' }]);
  });

  it('valid MessagePack that is not JSON-RPC, without an id: reported only', TEST, async () => {
    const h = await harness('msgpack');
    h.stdin.write(frameOf([1, 2, 3]));
    h.stdin.write(frameOf('just a string'));
    assert.deepEqual((await h.ping(1)).result, {});
    assert.equal(h.errors.length, 2);
    assert.ok(h.errors.every((e) => e instanceof PayloadError && e.code === 'not-json-rpc'));
    assert.deepEqual(
      h.replies.map((r) => r.id),
      [1],
    );
  });

  const refused: Array<{ name: string; params: Uint8Array | number[]; code: string; message: RegExp }> = [
    { name: 'a forbidden ext type (msgpackr RegExp, 0x78)', params: REGEXP_EXT, code: 'forbidden-type', message: /ext type 120/ },
    { name: 'the reserved type 0xc1', params: [0xc1], code: 'forbidden-type', message: /0xc1/ },
    { name: 'a bin before native bytes are negotiated', params: [0xc4, 2, 1, 2], code: 'forbidden-type', message: /bin/ },
    { name: 'nesting past the limit (200 levels, limit 128)', params: nestedArrays(200), code: 'too-deep', message: /deeper than 128/ },
    { name: 'a __proto__ key', params: PROTO_MAP, code: 'forbidden-key', message: /__proto__/ },
    { name: '2,000 nested `dc ffff` array headers', params: HUGE_NESTED_HEADERS, code: 'malformed-msgpack', message: /claims 65535 entries/ },
  ];
  for (const { name, params, code, message } of refused) {
    it(`${name}: PayloadError, -32700 for the request id, then the next request works`, TEST, async () => {
      const h = await harness('msgpack');
      const heapBefore = process.memoryUsage().heapUsed;
      h.stdin.write(frame(requestWithRawParams(9, 'tools/call', params)));
      const reply = await h.reply(9);
      assert.equal(reply.error?.code, -32700);
      assert.match(reply.error!.message, message);
      assert.deepEqual(reply.error!.data, { reason: code });
      assert.deepEqual((await h.ping(10)).result, {});
      assertOnly(h.errors, PayloadError, code);
      assert.match(h.errors[0]!.message, message);
      assert.equal(h.isClosed(), false);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
      assert.ok(process.memoryUsage().heapUsed - heapBefore < 64 * 1024 * 1024, 'memory stays bounded');
    });
  }

  it('a payload error in the middle of a chunk loses nothing around it', TEST, async () => {
    const h = await harness('msgpack');
    h.stdin.write(Buffer.concat([frameOf({ jsonrpc: '2.0', id: 1, method: 'ping' }), frame(requestWithRawParams(2, 'ping', REGEXP_EXT)), frame([]), frameOf({ jsonrpc: '2.0', id: 3, method: 'ping' })]));
    assert.deepEqual((await h.reply(3)).result, {});
    assert.deepEqual((await h.reply(1)).result, {});
    assert.equal((await h.reply(2)).error?.code, -32700);
    assert.deepEqual(
      h.errors.map((e) => (e as PayloadError).code),
      ['forbidden-type', 'empty-payload'],
    );
  });
});

describe('stdio server transport: random garbage (seeded)', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const jsonFirst = seed % 2 === 0;
    it(`seed ${seed} (${jsonFirst ? 'detected as JSON' : 'detected as msgpack'}): only FramingError/PayloadError, then onclose at EOF`, TEST, async () => {
      const h = await harness(jsonFirst ? 'json' : 'msgpack');
      const random = seededRandom(seed);
      const garbage = Buffer.alloc(16 * 1024);
      for (let i = 0; i < garbage.length; i++) garbage[i] = Math.floor(random() * 256);
      // Small headers keep the msgpack reader busy with many frames rather than one frame-too-large.
      if (!jsonFirst) for (let i = 0; i < garbage.length; i += 64) garbage[i] = 0;
      garbage[0] = jsonFirst ? 0x7b : 0x00;
      for (let at = 0; at < garbage.length; at += 1000) h.stdin.write(garbage.subarray(at, at + 1000));
      h.stdin.end();
      await h.waitClosed();
      assert.ok(h.errors.length >= 1, 'garbage is reported');
      for (const error of h.errors) assert.ok(error instanceof FramingError || error instanceof PayloadError, `${error.name}: ${error.message}`);
      // Whatever it answered is well formed (the reader above parsed it) and is an error reply.
      for (const reply of h.replies) assert.ok(reply.error, `unexpected reply ${JSON.stringify(reply)}`);
    });
  }
});

describe('stdio server transport, JSON mode', () => {
  it('a line over the cap: FramingError and onclose, before the newline arrives', TEST, async () => {
    const h = await harness('json', { maxMessageBytes: 1024 });
    h.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
    h.stdin.write('x'.repeat(2000));
    await h.waitClosed();
    assertOnly(h.errors, FramingError, 'line-too-long');
  });

  it('an invalid JSON line without an id: PayloadError only, and the next request works', TEST, async () => {
    const h = await harness('json');
    h.stdin.write('{"jsonrpc":"2.0", oops}\n');
    assert.deepEqual((await h.ping(5)).result, {});
    assertOnly(h.errors, PayloadError, 'malformed-json');
    assert.deepEqual(
      h.replies.map((r) => r.id),
      [5],
    );
  });

  it('JSON that is not JSON-RPC, with an id: -32600 for that id', TEST, async () => {
    const h = await harness('json');
    h.stdin.write('{"jsonrpc":"1.0","id":"a-1","method":"ping"}\n');
    const reply = await h.reply('a-1' as unknown as number);
    assert.equal(reply.error?.code, -32600);
    assert.deepEqual((await h.ping(6)).result, {});
    assertOnly(h.errors, PayloadError, 'not-json-rpc');
  });

  it('a request whose id is in flight: -32600 while the first still runs, which goes on and is answered alone', TEST, async () => {
    const h = await harness('json');
    const line = (message: object) => JSON.stringify(message) + '\n';
    // A string id this time; the first runs until cancelled (or 10 s).
    h.stdin.write(line({ jsonrpc: '2.0', id: 'twin', method: 'tools/call', params: { name: 'slow', arguments: {} } }));
    h.stdin.write(line({ jsonrpc: '2.0', id: 'twin', method: 'tools/call', params: { name: 'echo', arguments: { text: 'twin' } } }));
    const refused = await h.reply('twin' as unknown as number);
    assert.equal(refused.error?.code, -32600);
    assert.deepEqual(refused.error?.data, { reason: 'duplicate-id' });
    assert.match(refused.error!.message, /request id "twin" is already in flight on this connection/);
    // The refusal came while the first was running: it is the only answer to that id so far, and the connection serves.
    assert.deepEqual((await h.ping(1)).result, {});
    assert.equal(h.replies.filter((r) => r.id === 'twin').length, 1);
    // The first was not displaced: cancelling it (the SDK answers nothing then) frees the id for a new request.
    h.stdin.write(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'twin' } }));
    h.stdin.write(line({ jsonrpc: '2.0', id: 'twin', method: 'tools/call', params: { name: 'echo', arguments: { text: 'after' } } }));
    await waitUntil(() => h.replies.filter((r) => r.id === 'twin').length === 2, 5000, 'the reused id');
    assert.deepEqual((h.replies.at(-1)!.result as { content: unknown }).content, [{ type: 'text', text: 'after' }]);
  });

  it('a truncated line then EOF: FramingError, then onclose', TEST, async () => {
    const h = await harness('json');
    h.stdin.end('{"jsonrpc":"2.0","id":1,"meth');
    await withTimeout(h.waitClosed(), 5000, 'close');
    assertOnly(h.errors, FramingError, 'truncated-frame');
  });
});
