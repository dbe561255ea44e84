// Write backpressure and ordering on the stdio transports: a reader that stops makes senders wait (their
// send() promises stay pending and nothing piles up beyond a bounded amount), and when it reads again
// every message arrives whole and in order. Many large concurrent sends never interleave their bytes.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioMsgpackClientTransport, StdioMsgpackServerTransport } from 'mcp-msgpack-transport';
import { FrameReader, LineReader, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { closeQuietly, fixture, seededRandom, waitUntil, withTimeout } from './fixtures/stdio-helpers.js';

const TEST = { timeout: 60_000 };
const KiB = 1024;

/** A notification carrying `bytes` of text that names its sequence number, so order and content can be checked. */
function numbered(seq: number, bytes: number): JSONRPCMessage {
  const head = `#${seq}:`;
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: head + String.fromCharCode(97 + (seq % 26)).repeat(Math.max(0, bytes - head.length)) } };
}

/** Reads every message written to `stream`, on either wire. */
function readAll(stream: PassThrough, wire: 'msgpack' | 'json'): JSONRPCMessage[] {
  const out: JSONRPCMessage[] = [];
  const frames = new FrameReader();
  const lines = new LineReader();
  const decoder = new MsgpackDecoder();
  stream.on('data', (chunk: Buffer) => {
    if (wire === 'msgpack') frames.push(chunk, (p) => out.push(decoder.decode(p).value as JSONRPCMessage));
    else lines.push(chunk, (l) => out.push(JSON.parse(Buffer.from(l).toString('utf8')) as JSONRPCMessage));
  });
  return out;
}

async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

for (const wire of ['msgpack', 'json'] as const) {
  describe(`stdio backpressure and ordering, in-process (${wire})`, () => {
    it('a reader that stops: sends stay pending, buffering stays bounded; on resume all arrive in order', TEST, async () => {
      const highWaterMark = 16 * KiB;
      const stdout = new PassThrough({ highWaterMark });
      const transport = new StdioMsgpackServerTransport(new PassThrough(), stdout, { wire });
      await transport.start();
      const count = 200;
      const size = 8 * KiB;
      let resolved = 0;
      const sends = Array.from({ length: count }, (_, i) => transport.send(numbered(i, size)).then(() => void resolved++));
      await settle();
      // Nobody reads: the senders wait instead of the stream growing with all 200 messages (1.6 MB).
      assert.ok(resolved < 10, `${resolved} sends resolved while nobody reads`);
      const buffered = stdout.writableLength + stdout.readableLength;
      assert.ok(buffered <= 2 * highWaterMark + 2 * (size + 64), `${buffered} bytes buffered`);

      const received = readAll(stdout, wire);
      await withTimeout(Promise.all(sends), 20_000, 'every send after resume');
      await waitUntil(() => received.length === count, 5000, 'every message');
      for (const [i, message] of received.entries()) assert.deepEqual(message, numbered(i, size), `message ${i}`);
      await transport.close();
    });

    it('many large concurrent sends to a slow reader never interleave: every frame decodes, in order', TEST, async () => {
      const stdout = new PassThrough({ highWaterMark: 4 * KiB });
      const transport = new StdioMsgpackServerTransport(new PassThrough(), stdout, { wire });
      await transport.start();
      const random = seededRandom(42);
      const sizes = Array.from({ length: 60 }, () => Math.floor(random() * 400 * KiB) + 1);
      const sends = sizes.map((size, i) => transport.send(numbered(i, size)));
      const received = readAll(stdout, wire);
      // Read slowly: pause now and then, so writes pile up against a stalled reader mid-message.
      const stutter = setInterval(() => {
        stdout.pause();
        setTimeout(() => stdout.resume(), 2);
      }, 5);
      try {
        await withTimeout(Promise.all(sends), 30_000, 'every send');
        await waitUntil(() => received.length === sizes.length, 10_000, 'every message');
      } finally {
        clearInterval(stutter);
      }
      for (const [i, message] of received.entries()) assert.deepEqual(message, numbered(i, sizes[i]!), `message ${i}`);
      await transport.close();
    });

    it('close() while sends wait for a drain that never comes: they fail instead of hanging', TEST, async () => {
      const stdout = new PassThrough({ highWaterMark: 1 * KiB });
      const transport = new StdioMsgpackServerTransport(new PassThrough(), stdout, { wire });
      await transport.start();
      const sends = Array.from({ length: 20 }, (_, i) =>
        transport.send(numbered(i, 4 * KiB)).then(
          () => 'sent',
          (e: Error) => e.message,
        ),
      );
      await settle();
      await transport.close();
      const outcomes = await withTimeout(Promise.all(sends), 5000, 'sends after close');
      assert.ok(outcomes.includes('Not connected: transport closed'), outcomes.join(', '));
    });
  });
}

describe('stdio backpressure over a real pipe: a stopped child', { skip: process.platform === 'win32' }, () => {
  let transport: StdioMsgpackClientTransport | undefined;
  afterEach(async () => {
    if (transport?.pid) {
      try {
        process.kill(transport.pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    await closeQuietly(transport);
  });

  for (const wire of ['msgpack', 'json'] as const) {
    it(`sends wait while the child cannot read, then every large echo comes back intact (${wire})`, TEST, async () => {
      transport = new StdioMsgpackClientTransport({ command: process.execPath, args: [fixture('stdio-server')], wire });
      const answers = new Map<number, unknown>();
      transport.onmessage = (message) => {
        if ('id' in message && 'result' in message) answers.set(message.id as number, message.result);
      };
      await transport.start();
      // A raw transport, no Client: do the handshake by hand.
      await transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      await waitUntil(() => answers.has(0), 10_000, 'initialize');
      await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

      process.kill(transport.pid!, 'SIGSTOP');
      const random = seededRandom(7);
      const texts = Array.from({ length: 24 }, (_, i) => `${i}:` + String.fromCharCode(65 + i).repeat(Math.floor(random() * 300 * KiB) + 1));
      let resolved = 0;
      const sends = texts.map((text, i) => transport!.send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'echo', arguments: { text } } }).then(() => void resolved++));
      await new Promise((resolve) => setTimeout(resolve, 100));
      // A pipe holds about 64 KiB: with the child stopped, most sends cannot have gone out.
      assert.ok(resolved < texts.length / 2, `${resolved} of ${texts.length} sends resolved while the child was stopped`);

      process.kill(transport.pid!, 'SIGCONT');
      await withTimeout(Promise.all(sends), 30_000, 'every send after SIGCONT');
      await waitUntil(() => answers.size === texts.length + 1, 30_000, 'every answer');
      for (const [i, text] of texts.entries()) assert.deepEqual(answers.get(i + 1), { content: [{ type: 'text', text }] }, `answer ${i + 1}`);
    });
  }
});
