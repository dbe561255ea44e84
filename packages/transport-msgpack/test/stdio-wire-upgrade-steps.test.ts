// The stdio wire upgrade (SPEC.md 7.1) step by step, on the stdio transports over in-process pipes: what each
// side writes, where it switches, what the application sees. Bytes are fed by hand, so the switch can be
// made to fall inside one chunk, after an error answer, or never.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frameOf } from './fixtures/stdio-bytes.js';
import { waitUntil } from './fixtures/stdio-helpers.js';
import { clientOnPipes, line, serverOnPipes, settle } from './fixtures/stdio-pipes.js';

const OFFER = { 'mcp-msgpack/wire': { offer: ['msgpack-v1'] } };
const ACCEPT = { 'mcp-msgpack/wire': { accept: 'msgpack-v1' } };
/** What our client offers: msgpack-v1, and a mixed stream after the switch (SPEC.md 7.4). */
const OFFER_MIXED = { 'mcp-msgpack/wire': { offer: ['msgpack-v1'], mixed: true } };
describe('wire upgrade, server side', () => {
  it('takes the offer off, accepts in the result, then reads a frame that follows a line in the same chunk', async () => {
    const s = serverOnPipes();
    await s.transport.start();
    s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: { ...OFFER, progressToken: 7 }, protocolVersion: '2025-11-25' } }));
    s.input.write(line({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: OFFER } }));
    await waitUntil(() => s.received.length === 2, 2000, 'both requests');
    // The application sees the requests as the client's SDK made them.
    assert.deepEqual(s.received, [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: { progressToken: 7 }, protocolVersion: '2025-11-25' } },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    await s.transport.send({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
    await s.transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    assert.equal(s.transport.wire, 'msgpack');
    await settle();
    assert.deepEqual(s.written(), {
      lines: [{ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', _meta: ACCEPT } }],
      frames: [{ jsonrpc: '2.0', id: 2, result: {} }],
    });
    // The client sent one more line before it read the acceptance, then switched: one chunk holds both.
    const late = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } };
    const first = { jsonrpc: '2.0', method: 'notifications/initialized' };
    s.input.write(Buffer.concat([line(late), frameOf(first), frameOf({ jsonrpc: '2.0', id: 3, method: 'ping' })]));
    await waitUntil(() => s.received.length === 5, 2000, 'the messages around the switch');
    assert.deepEqual(s.received.slice(2), [late, first, { jsonrpc: '2.0', id: 3, method: 'ping' }]);
    assert.deepEqual(s.errors, []);
  });

  it('an error answer does not accept; the next offering request that gets a result does', async () => {
    const s = serverOnPipes();
    await s.transport.start();
    s.input.write(line({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: OFFER } }));
    s.input.write(line({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { _meta: OFFER } }));
    await waitUntil(() => s.received.length === 2, 2000, 'both requests');
    await s.transport.send({ jsonrpc: '2.0', id: 'd', error: { code: -32601, message: 'Method not found' } });
    assert.equal(s.transport.wire, 'json');
    await s.transport.send({ jsonrpc: '2.0', id: 'i', result: {} });
    assert.equal(s.transport.wire, 'msgpack');
    await settle();
    assert.deepEqual(s.written().lines, [
      { jsonrpc: '2.0', id: 'd', error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 'i', result: { _meta: ACCEPT } },
    ]);
  });

  it("forced to 'json': declines (answers without accepting) but still takes the offer off", async () => {
    const s = serverOnPipes('json');
    await s.transport.start();
    s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: OFFER, protocolVersion: '2025-11-25' } }));
    await waitUntil(() => s.received.length === 1, 2000, 'the request');
    assert.deepEqual(s.received[0], { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    await s.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    assert.equal(s.transport.wire, 'json');
    await settle();
    assert.deepEqual(s.written(), { lines: [{ jsonrpc: '2.0', id: 1, result: {} }], frames: [] });
  });
});

describe('wire upgrade, client side', () => {
  it('switches at the accepting answer, inside a chunk: the line before it, the answer, the frame after it (a server without mixed, as 0.1.0: frames only)', async () => {
    const c = clientOnPipes();
    await c.transport.start();
    await c.transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before' } };
    const after = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after\n' } };
    c.fromServer.write(Buffer.concat([line(log), line({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', _meta: ACCEPT } }), frameOf(after)]));
    await waitUntil(() => c.events.length === 4, 2000, 'the events');
    assert.deepEqual(c.events, [log, { wire: 'msgpack', reason: 'upgrade-accepted' }, { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25' } }, after]);
    assert.equal(c.transport.wire, 'msgpack');
    await c.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await settle();
    assert.deepEqual(c.written(), {
      lines: [{ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', _meta: OFFER_MIXED } }],
      frames: [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
    });
    await c.transport.close();
  });

  it('an error answer keeps the offer open; a result without acceptance settles JSON and ends the offers', async () => {
    const c = clientOnPipes();
    await c.transport.start();
    await c.transport.send({ jsonrpc: '2.0', id: 1, method: 'server/discover' });
    c.fromServer.write(line({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }));
    await waitUntil(() => c.events.length === 1, 2000, 'the error');
    await c.transport.send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: {} });
    c.fromServer.write(line({ jsonrpc: '2.0', id: 2, result: {} }));
    await waitUntil(() => c.events.length === 3, 2000, 'the result');
    assert.deepEqual(c.events.slice(1), [
      { wire: 'json', reason: 'upgrade-not-accepted' },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    await c.transport.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await settle();
    const { lines, frames } = c.written();
    assert.deepEqual(frames, []);
    assert.deepEqual(lines, [
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: OFFER_MIXED } },
      { jsonrpc: '2.0', id: 2, method: 'initialize', params: { _meta: OFFER_MIXED } },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ]);
    assert.equal(c.transport.wire, 'json');
    await c.transport.close();
  });
});
