// Measures read_media_file end to end: our server with native bytes (MessagePack) vs JSON on the same
// server vs the official filesystem server, over stdio and Streamable HTTP, side by side in one run.
// Not a test: numbers vary by machine. Linux only (server CPU and peak RSS come from /proc/PID).
//   npm run build -w mcp-filesystem-media-server && node packages/bench/measure/measure-media.mjs [calls]
// Per mode, a fresh server process; per call: bytes the server sent (stdout pipe or HTTP response bodies),
// server CPU time (utime+stime delta / calls), server peak RSS (VmHWM), client p50 latency.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callToolNative, HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { cpuMs, startUrlPrinter } from './lib/child-server.mjs';

const calls = Number(process.argv[2] ?? 20);
const warmup = 3;
const MiB = 1024 * 1024;
const OURS = fileURLToPath(new URL('../../filesystem-media-server/dist/esm/cli.js', import.meta.url));
const OFFICIAL = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

function procStats(pid) {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuMs: cpuMs(pid), peakRssMiB: hwm ? Number(hwm[1]) / 1024 : NaN };
}

function countingSpawn(counter) {
  return (command, args, options) => {
    const child = spawn(command, args, options);
    child.stdout.on('data', (chunk) => (counter.bytes += chunk.length));
    return child;
  };
}

function countingFetch(counter) {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          counter.bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

const startHttp = (dir) => startUrlPrinter(process.execPath, [OURS, '--http', '127.0.0.1:0', dir], 'the media server');

function modes(dir) {
  const stdio = (entry, msgpack, nativeBytes) => (counter) => {
    const transport = msgpack
      ? new StdioMsgpackClientTransport({ command: process.execPath, args: [entry, dir], stderr: 'ignore', wire: 'msgpack', nativeBytes, spawn: countingSpawn(counter) })
      : new StdioClientTransport({ command: process.execPath, args: [entry, dir], stderr: 'ignore' });
    return { transport, pid: () => transport.pid, stop: () => {} };
  };
  return [
    { name: 'stdio  ours   MessagePack + native bytes', make: stdio(OURS, true, true), native: true },
    { name: 'stdio  ours   MessagePack, no native bytes', make: stdio(OURS, true, false), native: false },
    { name: 'stdio  ours   JSON (SDK client)', make: stdio(OURS, false), native: false, countStdioJson: true },
    { name: 'stdio  official JSON (SDK client)', make: stdio(OFFICIAL, false), native: false, countStdioJson: true },
    {
      name: 'HTTP   ours   MessagePack + native bytes',
      http: true,
      native: true,
      make: async (counter) => {
        const server = await startHttp(dir);
        const transport = new HttpMsgpackClientTransport(server.url, { wire: 'msgpack', nativeBytes: true, fetch: countingFetch(counter) });
        return { transport, pid: () => server.pid, stop: server.stop };
      },
    },
    {
      name: 'HTTP   ours   JSON (SDK client)',
      http: true,
      native: false,
      make: async (counter) => {
        const server = await startHttp(dir);
        const transport = new StreamableHTTPClientTransport(server.url, { fetch: countingFetch(counter) });
        return { transport, pid: () => server.pid, stop: server.stop };
      },
    },
  ];
}

async function measure(mode, file) {
  const counter = { bytes: 0 };
  const made = await mode.make(counter);
  const client = new Client({ name: 'measure', version: '1' });
  try {
    await client.connect(made.transport);
    const pid = made.pid();
    // The SDK's StdioClientTransport has no spawn hook: count its child's stdout through its private field.
    if (mode.countStdioJson) made.transport._process.stdout.on('data', (chunk) => (counter.bytes += chunk.length));
    const once = () =>
      mode.native
        ? callToolNative(client, { name: 'read_media_file', arguments: { path: file } }, { timeout: 120_000 })
        : client.callTool({ name: 'read_media_file', arguments: { path: file } }, undefined, { timeout: 120_000 });
    for (let i = 0; i < warmup; i++) await once();
    const before = procStats(pid);
    const bytesBefore = counter.bytes;
    const times = [];
    for (let i = 0; i < calls; i++) {
      const start = performance.now();
      const result = await once();
      times.push(performance.now() - start);
      if (result.isError) throw new Error(result.content[0].text);
    }
    const after = procStats(pid);
    const bytes = counter.bytes - bytesBefore;
    times.sort((a, b) => a - b);
    return { wireMiB: bytes / calls / MiB, cpuMs: (after.cpuMs - before.cpuMs) / calls, peakRssMiB: after.peakRssMiB, p50: times[Math.floor(times.length / 2)] };
  } finally {
    await client.close().catch(() => {});
    made.stop();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsms-measure-'));
try {
  console.log(`read_media_file, ${calls} calls per row after ${warmup} warm-up calls; runtime ${process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.version}`}`);
  for (const sizeMiB of [1, 5]) {
    const file = path.join(dir, `image-${sizeMiB}.png`);
    fs.writeFileSync(file, randomBytes(sizeMiB * MiB));
    console.log(`\n${sizeMiB} MiB PNG`);
    console.log('mode'.padEnd(46) + 'wire MiB/call'.padStart(14) + 'server CPU ms/call'.padStart(20) + 'server peak RSS MiB'.padStart(21) + 'client p50 ms'.padStart(15));
    for (const mode of modes(dir)) {
      try {
        const r = await measure(mode, file);
        console.log(mode.name.padEnd(46) + r.wireMiB.toFixed(2).padStart(14) + r.cpuMs.toFixed(1).padStart(20) + r.peakRssMiB.toFixed(0).padStart(21) + r.p50.toFixed(1).padStart(15));
      } catch (error) {
        console.log(
          mode.name.padEnd(46) +
            `  fails: ${String(error.message ?? error)
              .split('\n')[0]
              .slice(0, 90)}`,
        );
      }
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
