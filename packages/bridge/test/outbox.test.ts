// The notification outbox of a `--serve` session (src/serve/outbox.ts) alone: when it makes the child wait,
// and that a wait decided on a burst of bytes ends once the burst turns out not to be held notifications.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from 'mcp-msgpack-transport';
import { StandaloneOutbox } from '../src/serve/outbox.js';

const MiB = 1024 * 1024;

function outboxWithSource() {
  const sent: JSONRPCMessage[] = [];
  const source = { paused: false, pause: () => (source.paused = true), resume: () => (source.paused = false) };
  const outbox = new StandaloneOutbox(
    (message) => sent.push(message),
    128,
    () => {},
    () => 'session',
  );
  outbox.source = source;
  const stream = { backedUp: true };
  outbox.opened(stream);
  return { outbox, source, sent, stream };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('--serve notification outbox', () => {
  it('a burst read while the client lags pauses the child, and reads it again when the burst was not held (a large response)', async () => {
    const { outbox, source } = outboxWithSource();
    outbox.read(6 * MiB);
    outbox.read(3 * MiB);
    assert.equal(source.paused, true, 'the rest of the burst is stopped');
    await turn();
    await turn();
    assert.equal(source.paused, false, 'nothing was held: the child is read again');
  });

  it('a burst of notifications the client does not read keeps the child waiting', async () => {
    const { outbox, source } = outboxWithSource();
    outbox.read(9 * MiB);
    const data = 'x'.repeat(64 * 1024);
    for (let n = 0; n < 130; n++) outbox.deliver({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });
    await turn();
    await turn();
    assert.equal(source.paused, true);
  });

  it('does not pause while the client keeps up (nothing held, room in the stream)', () => {
    const { outbox, source, stream } = outboxWithSource();
    stream.backedUp = false;
    outbox.read(20 * MiB);
    assert.equal(source.paused, false);
  });
});
