#!/usr/bin/env node
/**
 * The floor for media over stdio: no MCP, no codec. Each request on stdin is a length-prefixed file path
 * (UTF-8); each answer on stdout is that file's bytes, read fresh into one reused buffer (no allocation, no
 * garbage), length-prefixed: raw bytes through the same kind of pipe the MCP servers use. The media venue's
 * stdio scenarios compare against it.
 */
import { open } from 'node:fs/promises';
import { FrameReader } from 'mcp-msgpack-transport/wire';

const reader = new FrameReader();
let queue = Promise.resolve();
/** One buffer, reused: answers go one at a time, each after the last one's bytes were written. */
let buffer = Buffer.allocUnsafe(0);

async function answer(path: string): Promise<void> {
  const file = await open(path, 'r');
  let size: number;
  try {
    size = (await file.stat()).size;
    if (buffer.length < 4 + size) buffer = Buffer.allocUnsafe(4 + size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await file.read(buffer, 4 + filled, size - filled, filled);
      if (bytesRead === 0) throw new Error(`${path} shrank while being read`);
      filled += bytesRead;
    }
  } finally {
    await file.close();
  }
  buffer.writeUInt32BE(size, 0);
  await new Promise<void>((resolve, reject) => process.stdout.write(buffer.subarray(0, 4 + size), (error) => (error ? reject(error) : resolve())));
}

process.stdin.on('data', (chunk: Buffer) => {
  reader.push(chunk, (payload) => {
    const path = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
    queue = queue
      .then(() => answer(path))
      .catch((error: Error) => {
        process.stderr.write(`raw media server: ${error.message}\n`);
        process.exit(1);
      });
  });
});
process.stdin.on('end', () => void queue.then(() => process.exit(0)));
