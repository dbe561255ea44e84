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

/**
 * Sends `hostile` (a frame whose request has id 7) to a fresh stdio server between two pings: the request must
 * be refused with -32700 and a message matching `reason`, the next ping answered, and the server's peak RSS
 * must stay under 4x the frame (the frame itself must be held: 1x; the bound is 16x).
 */
async function assertRefusedCheaply(hostile: Buffer, reason: RegExp, env: Record<string, string> = {}): Promise<void> {
  const child = spawn(process.execPath, [fixture('stdio-server')], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, MCP_TEST_WIRE: 'msgpack', ...env } });
  try {
    const replies = collectReplies(child.stdout!);
    child.stdin!.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await waitUntil(() => replies.has(1), 15_000, 'the first ping');
    const before = statusKb(child.pid!, 'VmRSS');
    child.stdin!.write(hostile);
    await waitUntil(() => replies.has(7), 45_000, 'the answer to the hostile request');
    const answer = replies.get(7)!;
    assert.equal(answer.error?.code, -32700);
    assert.match(answer.error!.message, reason);
    child.stdin!.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    await waitUntil(() => replies.has(2), 15_000, 'the ping after it');
    assert.deepEqual(replies.get(2)!.result, {});
    const grew = statusKb(child.pid!, 'VmHWM') - before;
    assert.ok(grew < 4 * hostile.length, `peak RSS grew by ${(grew / MIB).toFixed(0)} MiB for a ${(hostile.length / MIB).toFixed(0)} MiB frame`);
  } finally {
    child.kill('SIGKILL');
  }
}

describe('decode budget, end to end over stdio', () => {
  it('a 16 MiB frame of empty bins, on a server with native bytes, is refused at the first bin: nothing is built', { timeout: 60_000 }, async () => {
    // Native bytes on: a 2026-07-28 request may offer the extension itself, so bin may arrive on any message.
    // Before the bin rule of 4.1.3 the decoder built all 8 million bins and the adapter refused them after (57x).
    await assertRefusedCheaply(frameOf([0xc4, 0x00], 8 * MIB), /outside a media field/, { MCP_TEST_NATIVE_BYTES: '1' });
  });

  it('a 16 MiB frame of 2-letter strings is refused by the word budget before any is built, and the server answers the next request', { timeout: 60_000 }, async () => {
    // Within the container budget (no containers at all), but 4 words for every 3 bytes; built, the strings
    // would take about 14x the frame.
    await assertRefusedCheaply(frameOf([0xa2, 0x61, 0x62], Math.floor((16 * MIB) / 3)), /values that cost more than \d+ words to build/);
  });

  it('a 60 MiB frame of empty maps is refused cheaply and the server answers the next request', { timeout: 60_000 }, async () => {
    // The word budget (8 words an empty map) and the container budget meet at the same byte here. Measured: 1.6x on Node.
    await assertRefusedCheaply(frameOf([0x80], 60 * MIB), /the decode budget/);
  });
});
