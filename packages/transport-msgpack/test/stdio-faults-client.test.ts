// SPEC.md "Bad input" and process faults, on the stdio client transport: a child that writes bad bytes,
// dies mid-frame, or exits at start. Each gets a clear error through onerror, then the documented outcome.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FramingError, PayloadError, StdioMsgpackClientTransport, type StdioMsgpackServerParameters } from 'mcp-msgpack-transport';
import { frame, REGEXP_EXT, responseWithRawResult } from './fixtures/stdio-bytes.js';
import { closeQuietly, createTestClient, fixture, waitUntil, withTimeout } from './fixtures/stdio-helpers.js';

const TEST = { timeout: 30_000 };
const PROMPTLY = 3000;

interface Observed {
  transport: StdioMsgpackClientTransport;
  errors: Error[];
  messages: JSONRPCMessage[];
  isClosed(): boolean;
}

const cleanup: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (cleanup.length > 0) await closeQuietly(cleanup.pop());
});

function observe(transport: StdioMsgpackClientTransport): Observed {
  const errors: Error[] = [];
  const messages: JSONRPCMessage[] = [];
  let closed = false;
  transport.onerror = (error) => errors.push(error);
  transport.onmessage = (message) => messages.push(message);
  transport.onclose = () => {
    closed = true;
  };
  cleanup.push(transport);
  return { transport, errors, messages, isClosed: () => closed };
}

/** Starts the misbehaving child with these bytes (see fixtures/stdio-bad-child.ts). */
async function badChild(bytes: Buffer, env: Record<string, string> = {}, options: Partial<StdioMsgpackServerParameters> = {}): Promise<Observed> {
  const transport = new StdioMsgpackClientTransport({
    command: process.execPath,
    args: [fixture('stdio-bad-child')],
    env: { MCP_BAD_BYTES: bytes.toString('hex'), ...env },
    wire: env.MCP_BAD_WIRE === 'json' ? 'json' : 'msgpack',
    ...options,
  });
  const observed = observe(transport);
  await withTimeout(transport.start(), 10_000, 'spawn');
  return observed;
}

async function pingWorks(observed: Observed, id: number): Promise<void> {
  await observed.transport.send({ jsonrpc: '2.0', id, method: 'ping' });
  await waitUntil(() => observed.messages.some((m) => 'id' in m && m.id === id), 5000, `the answer to ping ${id}`);
  const answer = observed.messages.find((m) => 'id' in m && m.id === id)!;
  assert.deepEqual(answer, { jsonrpc: '2.0', id, result: { answeredBy: 'stdio-bad-child' } });
}

function codes(errors: Error[]): string[] {
  return errors.map((e) => (e instanceof FramingError || e instanceof PayloadError ? `${e.name}:${e.code}` : `Error:${e.message}`));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('stdio client transport, msgpack-v1: a child writing bad bytes', () => {
  it('a truncated frame then EOF: FramingError, the exit, then onclose', TEST, async () => {
    const o = await badChild(Buffer.concat([Buffer.from([0, 0, 0, 100]), Buffer.alloc(10, 0x90)]), { MCP_BAD_THEN: 'exit' });
    await waitUntil(o.isClosed, PROMPTLY, 'onclose');
    assert.deepEqual(codes(o.errors), ['FramingError:truncated-frame', 'Error:MCP server process exited unexpectedly (code 0)']);
    await assert.rejects(o.transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }), /Not connected/);
  });

  it('a header over the cap: FramingError, then the child is ended and onclose follows', TEST, async () => {
    const o = await badChild(Buffer.from([0, 0, 0x04, 0x01]), {}, { maxMessageBytes: 1024 });
    const pid = o.transport.pid!;
    await waitUntil(o.isClosed, PROMPTLY, 'onclose');
    assert.equal(codes(o.errors)[0], 'FramingError:frame-too-large');
    await waitUntil(() => !isAlive(pid), PROMPTLY, 'the child to be ended');
  });

  it('bad payloads: a response with a forbidden ext fails that request id; the connection goes on', TEST, async () => {
    const o = await badChild(Buffer.concat([frame(responseWithRawResult(1, REGEXP_EXT)), frame([]), frame([0xc1])]));
    await waitUntil(() => o.errors.length >= 3, PROMPTLY, 'three errors');
    assert.deepEqual(codes(o.errors), ['PayloadError:forbidden-type', 'PayloadError:empty-payload', 'PayloadError:forbidden-type']);
    // Our pending request 1 (had we sent it) fails at once with the reason, instead of timing out.
    const failed = o.messages[0] as { id: number; error: { code: number; message: string } };
    assert.equal(failed.id, 1);
    assert.equal(failed.error.code, -32700);
    assert.match(failed.error.message, /unreadable response from peer: .*ext type 120/);
    await pingWorks(o, 2);
    assert.equal(o.isClosed(), false);
  });
});

describe('stdio client transport: the decode budget', () => {
  it('a response over the budget fails that request id at once, before anything is built; the connection goes on', TEST, async () => {
    // 100 empty maps in a ~130-byte response: over a budget of 16 + 1 per 8 bytes.
    const o = await badChild(frame(responseWithRawResult(1, [0x81, 0xa1, 0x61, 0xdc, 0x00, 0x64, ...new Array(100).fill(0x80)])), {}, { decodeBudget: { base: 16 } });
    await waitUntil(() => o.errors.length >= 1, PROMPTLY, 'the error');
    assert.deepEqual(codes(o.errors), ['PayloadError:over-budget']);
    const failed = o.messages[0] as { id: number; error: { code: number; message: string } };
    assert.equal(failed.id, 1);
    assert.equal(failed.error.code, -32700);
    assert.match(failed.error.message, /more than \d+ arrays, maps and bins/);
    await pingWorks(o, 2);
  });
});

describe('stdio client transport, JSON mode: a child writing bad lines', () => {
  it('a line over the cap: FramingError, then onclose', TEST, async () => {
    const o = await badChild(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"pad":"' + 'x'.repeat(2000)), { MCP_BAD_WIRE: 'json' }, { maxMessageBytes: 1024 });
    await waitUntil(o.isClosed, PROMPTLY, 'onclose');
    assert.equal(codes(o.errors)[0], 'FramingError:line-too-long');
  });

  it('an invalid JSON line without an id: PayloadError, and the connection goes on', TEST, async () => {
    const o = await badChild(Buffer.from('{"jsonrpc":"2.0", oops}\n'), { MCP_BAD_WIRE: 'json' });
    await waitUntil(() => o.errors.length >= 1, PROMPTLY, 'the error');
    assert.deepEqual(codes(o.errors), ['PayloadError:malformed-json']);
    await pingWorks(o, 3);
    assert.deepEqual(o.messages.length, 1);
  });
});

describe('stdio client transport: process faults', () => {
  for (const wire of ['msgpack', 'json'] as const) {
    it(`the server killed mid-frame (${wire}): every pending call rejects promptly with a clear error`, TEST, async () => {
      const transport = new StdioMsgpackClientTransport({
        command: process.execPath,
        args: [fixture('stdio-server')],
        env: { MCP_TEST_HALF: wire },
        wire,
      });
      const o = observe(transport);
      const { client } = createTestClient();
      cleanup.push(client);
      await withTimeout(client.connect(transport), 10_000, 'connect');
      const errors = [...o.errors];
      const pending = client.callTool({ name: 'slow', arguments: {} });
      const dying = client.callTool({ name: 'exit', arguments: {} });
      const started = Date.now();
      await assert.rejects(withTimeout(pending, PROMPTLY, 'pending slow call'), /Connection closed/);
      await assert.rejects(withTimeout(dying, PROMPTLY, 'the exit call'), /Connection closed/);
      assert.ok(Date.now() - started < PROMPTLY);
      assert.deepEqual(errors, []);
      assert.deepEqual(codes(o.errors), ['FramingError:truncated-frame', 'Error:MCP server process exited unexpectedly (code 3)']);
      assert.match(o.errors[0]!.message, wire === 'json' ? /stream ended inside a line/ : /1 of 256 payload bytes/);
      assert.equal(o.isClosed(), true);
    });
  }

  it('the child exiting at start: connect() rejects promptly and onerror says why', TEST, async () => {
    const transport = new StdioMsgpackClientTransport({ command: process.execPath, args: [fixture('stdio-bad-child')], env: { MCP_BAD_EXIT: '2' }, stderr: 'pipe' });
    const o = observe(transport);
    const { client } = createTestClient();
    cleanup.push(client);
    await assert.rejects(withTimeout(client.connect(transport), PROMPTLY, 'connect'), /Connection closed/);
    await waitUntil(o.isClosed, PROMPTLY, 'onclose');
    assert.ok(
      o.errors.some((e) => e.message === 'MCP server process exited unexpectedly (code 2)'),
      codes(o.errors).join('; '),
    );
  });

  it('a command that does not exist: connect() rejects with the spawn error', TEST, async () => {
    const transport = new StdioMsgpackClientTransport({ command: '/nonexistent/mcp-server-binary' });
    const o = observe(transport);
    const { client } = createTestClient();
    await assert.rejects(withTimeout(client.connect(transport), PROMPTLY, 'connect'), /ENOENT/);
    await waitUntil(o.isClosed, PROMPTLY, 'onclose');
  });
});
