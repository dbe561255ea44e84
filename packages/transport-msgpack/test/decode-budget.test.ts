// Issue 12's memory-amplification attack, end to end: one legal 60 MiB frame of empty maps sent to a real
// stdio server (a child process). The decode budget refuses it before anything is built: the request is
// answered with -32700, the next request is answered, and the child's peak RSS stays a small multiple of the
// frame (without the budget: about 68x, over 4 GB).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CanonicalEncoder, FrameReader, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { fixture, waitUntil } from './fixtures/stdio-helpers.js';

const encoder = new CanonicalEncoder();
const MIB = 1024 * 1024;

/** A msgpack-v1 frame: a tools/call request (id 7) whose params.junk is an array32 of `count` copies of `unit`. */
function frameOf(unit: number[], count: number): Buffer {
  const head = Buffer.from(encoder.encode({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { junk: 0 } }));
  const prefix = head.subarray(0, head.length - 1); // the placeholder 0 is last: splice the array in its place
  const frame = Buffer.alloc(4 + prefix.length + 5 + count * unit.length);
  frame.writeUInt32BE(frame.length - 4, 0);
  prefix.copy(frame, 4);
  frame[4 + prefix.length] = 0xdd;
  frame.writeUInt32BE(count, 4 + prefix.length + 1);
  for (let at = 4 + prefix.length + 5; at < frame.length; at += unit.length) for (let j = 0; j < unit.length; j++) frame[at + j] = unit[j]!;
  return frame;
}

type Reply = { id: unknown; result?: unknown; error?: { code: number; message: string } };

function collectReplies(stdout: NodeJS.ReadableStream): Map<unknown, Reply> {
  const replies = new Map<unknown, Reply>();
  const frames = new FrameReader();
  const decoder = new MsgpackDecoder();
  stdout.on('data', (chunk: Buffer) =>
    frames.push(chunk, (payload) => {
      const message = decoder.decode(payload).value as Reply;
      replies.set(message.id, message);
    }),
  );
  return replies;
}

const statusKb = (pid: number, field: 'VmHWM' | 'VmRSS'): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('decode budget, end to end over stdio', () => {
  it('a 16 MiB frame of empty bins, on a server with native bytes, is refused at the first bin: nothing is built', { timeout: 60_000 }, async () => {
    // Native bytes on: a 2026-07-28 request may offer the extension itself, so bin may arrive on any message.
    // Before the bin rule of 4.1.3 the decoder built all 8 million bins and the adapter refused them after (57x).
    const child = spawn(process.execPath, [fixture('stdio-server')], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, MCP_TEST_WIRE: 'msgpack', MCP_TEST_NATIVE_BYTES: '1' } });
    try {
      const replies = collectReplies(child.stdout!);
      child.stdin!.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      await waitUntil(() => replies.has(1), 15_000, 'the first ping');
      const before = statusKb(child.pid!, 'VmRSS');
      const hostile = frameOf([0xc4, 0x00], 8 * MIB);
      child.stdin!.write(hostile);
      await waitUntil(() => replies.has(7), 45_000, 'the answer to the hostile request');
      assert.equal(replies.get(7)!.error?.code, -32700);
      assert.match(replies.get(7)!.error!.message, /outside a media field/);
      child.stdin!.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
      await waitUntil(() => replies.has(2), 15_000, 'the ping after it');
      const grew = statusKb(child.pid!, 'VmHWM') - before;
      assert.ok(grew < 4 * hostile.length, `peak RSS grew by ${(grew / MIB).toFixed(0)} MiB for a ${(hostile.length / MIB).toFixed(0)} MiB frame`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a 60 MiB frame of empty maps is refused cheaply and the server answers the next request', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [fixture('stdio-server')], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, MCP_TEST_WIRE: 'msgpack' } });
    try {
      const replies = collectReplies(child.stdout!);
      child.stdin!.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      await waitUntil(() => replies.has(1), 15_000, 'the first ping');
      const before = statusKb(child.pid!, 'VmRSS');

      const hostile = frameOf([0x80], 60 * MIB);
      child.stdin!.write(hostile);
      await waitUntil(() => replies.has(7), 45_000, 'the answer to the hostile request');
      const answer = replies.get(7)!;
      assert.equal(answer.error?.code, -32700);
      assert.match(answer.error!.message, /arrays, maps and bins/);

      child.stdin!.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
      await waitUntil(() => replies.has(2), 15_000, 'the ping after it');
      assert.deepEqual(replies.get(2)!.result, {});

      // The frame itself must be held (1x); the bound is 16x. Measured: 1.6x on Node.
      const grew = statusKb(child.pid!, 'VmHWM') - before;
      assert.ok(grew < 4 * hostile.length, `peak RSS grew by ${(grew / MIB).toFixed(0)} MiB for a ${(hostile.length / MIB).toFixed(0)} MiB frame`);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
