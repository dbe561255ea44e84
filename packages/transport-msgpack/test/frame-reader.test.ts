import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FramingError } from 'mcp-msgpack-transport';
import { FrameReader } from 'mcp-msgpack-transport/wire';

function frame(payload: number[]): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length);
  out.set(payload, 4);
  return out;
}

function collect(reader: FrameReader, chunks: Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const chunk of chunks) reader.push(chunk, (p) => out.push(p));
  return out;
}

describe('FrameReader', () => {
  it('hands on a frame inside one chunk as a view of that chunk (no copy)', () => {
    const chunk = new Uint8Array([...frame([1, 2, 3]), ...frame([4])]);
    const payloads = collect(new FrameReader(), [chunk]);
    assert.deepEqual(
      payloads.map((p) => [...p]),
      [[1, 2, 3], [4]],
    );
    assert.equal(payloads[0]!.buffer, chunk.buffer, 'payload must alias the chunk');
  });

  it('reassembles frames split at every byte boundary, including inside the header', () => {
    const stream = new Uint8Array([...frame([9, 8, 7, 6, 5]), ...frame([]), ...frame([42])]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const payloads = collect(new FrameReader(), [stream.subarray(0, cut), stream.subarray(cut)]);
      assert.deepEqual(
        payloads.map((p) => [...p]),
        [[9, 8, 7, 6, 5], [], [42]],
        `cut at ${cut}`,
      );
    }
  });

  it('rejects a header over the cap before allocating, with a FramingError', () => {
    const reader = new FrameReader({ maxFrameBytes: 16 });
    assert.throws(
      () => reader.push(new Uint8Array([0, 0, 0, 17]), () => {}),
      (e: unknown) => e instanceof FramingError && e.code === 'frame-too-large',
    );
    assert.throws(() => new FrameReader().push(new Uint8Array([0xff, 0xff, 0xff, 0xff]), () => {}), FramingError);
  });

  it('reports a stream that ends inside a header or a payload', () => {
    const inHeader = new FrameReader();
    inHeader.push(new Uint8Array([0, 0]), () => {});
    assert.throws(
      () => inHeader.end(),
      (e: unknown) => e instanceof FramingError && e.code === 'truncated-frame' && /header/.test(e.message),
    );
    const inPayload = new FrameReader();
    inPayload.push(new Uint8Array([0, 0, 0, 10, 1, 2]), () => {});
    assert.equal(inPayload.pendingBytes, 2);
    assert.throws(() => inPayload.end(), /2 of 10 payload bytes/);
    const clean = new FrameReader();
    clean.push(frame([1]), () => {});
    assert.doesNotThrow(() => clean.end());
  });

  it('reassembles a large frame spread over many chunks of varied sizes, byte for byte', () => {
    const payload = new Uint8Array(3 * 1024 * 1024 + 7);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 131) & 0xff;
    const stream = new Uint8Array([...frame([1, 2]), ...frame([])]);
    const big = new Uint8Array(4 + payload.length);
    new DataView(big.buffer).setUint32(0, payload.length);
    big.set(payload, 4);
    const all = new Uint8Array(stream.length + big.length + 5);
    all.set(stream, 0);
    all.set(big, stream.length);
    all.set(frame([9]), stream.length + big.length);
    for (const step of [3, 65536, 100_003, 1_500_000]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < all.length; at += step) chunks.push(all.subarray(at, at + step));
      const payloads = collect(new FrameReader(), chunks);
      assert.equal(payloads.length, 4, `step ${step}`);
      assert.deepEqual([...payloads[0]!], [1, 2]);
      assert.equal(payloads[1]!.length, 0);
      assert.ok(Buffer.from(payloads[2]!).equals(Buffer.from(payload)), `large payload intact at step ${step}`);
      assert.deepEqual([...payloads[3]!], [9]);
    }
  });

  it("does not allocate a large frame's buffer on the strength of its header alone", () => {
    const reader = new FrameReader();
    const before = process.memoryUsage().arrayBuffers;
    // Announce 60 MiB, send 100 bytes: the reader must not pin 60 MiB.
    const header = new Uint8Array(4);
    new DataView(header.buffer).setUint32(0, 60 * 1024 * 1024);
    reader.push(header, () => assert.fail('no payload expected'));
    reader.push(new Uint8Array(100), () => assert.fail('no payload expected'));
    const grown = process.memoryUsage().arrayBuffers - before;
    assert.ok(grown < 16 * 1024 * 1024, `array buffers grew by ${grown} bytes`);
    assert.equal(reader.pendingBytes, 100);
    assert.throws(() => reader.end(), /100 of 62914560 payload bytes/);
  });
});
