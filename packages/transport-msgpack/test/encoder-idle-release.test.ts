// The encoder keeps the buffer of a large message for the next one once it is written, and lets go of it
// once no large message has come for a while (an HTTP session's encoder lives as long as the session).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { giveBackAll } from '../src/buffers/lent-bytes.js';
import { CanonicalEncoder } from '../src/wire/encoder.js';

const MiB = 1024 * 1024;

describe('CanonicalEncoder: buffers kept between messages', { timeout: 30_000 }, () => {
  it('keeps a large message buffer once written, and drops it after about 10 s without large messages', async () => {
    const encoder = new CanonicalEncoder();
    const pieces = encoder.encodeFramePieces({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(2 * MiB) } });
    // What a writer does once the kernel has the bytes.
    giveBackAll(pieces);
    assert.ok(encoder.keptBytes >= 2 * MiB, `kept ${encoder.keptBytes} bytes for the next large message`);
    const deadline = Date.now() + 25_000;
    while (encoder.keptBytes > 64 * 1024 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    assert.ok(encoder.keptBytes <= 64 * 1024, `still kept ${encoder.keptBytes} bytes after the idle release`);
    // And it goes on encoding as before.
    const again = encoder.encodeFramePieces({ jsonrpc: '2.0', id: 2, result: { text: 'y'.repeat(MiB) } });
    assert.equal(again.reduce((sum, piece) => sum + piece.length, 0) > MiB, true);
  });
});
