// Measures the stdio transports against the SDK's, side by side in one run, and prints ratios (issue 2, §8).
//   node packages/bench/measure/measure-stdio.mjs [--quick]        (needs `npm run build` in packages/transport-msgpack)
// (a) reading one 5 MiB message arriving in 64 KiB chunks: our FrameReader / LineReader vs the SDK's ReadBuffer;
// (b) small-message throughput through a real child process: ours (msgpack, JSON) vs the SDK's stdio transports;
// (c) a 5 MiB image result end to end on both wires, and where the stock SDK stdio path fails.
// Variants alternate in rounds (A B C A B C ...) and the medians of the per-round ratios are reported.
// With --serve ours|sdk the script is the child: an McpServer on our or the SDK's stdio server transport.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(import.meta.url);
const MiB = 1024 * 1024;
const KiB = 1024;

// ---------------------------------------------------------------------------------------------- child

async function serve(kind) {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { z } = await import('zod');
  const server = new McpServer({ name: `measure-${kind}`, version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  // `twice` puts the base64 in structuredContent too, as the official filesystem server's read_media_file does.
  server.registerTool('image', { inputSchema: { bytes: z.number().int(), twice: z.boolean().optional() } }, async ({ bytes, twice }) => {
    const data = Buffer.alloc(bytes, 0x5a).toString('base64');
    const content = [{ type: 'image', data, mimeType: 'image/png' }];
    return twice ? { content, structuredContent: { content } } : { content };
  });
  if (kind === 'sdk') {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    await server.connect(new StdioServerTransport());
  } else {
    const { StdioMsgpackServerTransport } = await import('mcp-msgpack-transport');
    await server.connect(new StdioMsgpackServerTransport());
  }
}

// --------------------------------------------------------------------------------------------- parent

async function main(quick) {
  const runtime = typeof globalThis.Bun !== 'undefined' ? `bun ${globalThis.Bun.version}` : `node ${process.versions.node}`;
  console.log(`measure-stdio on ${runtime}, ${new Date().toISOString()}${quick ? ' (quick)' : ''}\n`);
  await measureReaders(quick ? 5 : 15);
  await measureThroughput(quick ? 3 : 7, quick ? 300 : 1000);
  await measureImages(quick ? 3 : 7);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (n, digits = 2) => n.toFixed(digits);

/** Runs the variants in alternating rounds; returns each one's per-round values. */
async function rounds(count, variants) {
  const values = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let round = 0; round < count; round++) {
    for (const [name, run] of Object.entries(variants)) values[name].push(await run());
  }
  return values;
}

/** Per-round ratio a/b, then the median. */
function medianRatio(a, b) {
  return median(a.map((value, i) => value / b[i]));
}

// (a) ------------------------------------------------------------------------------------------------

async function measureReaders(roundCount) {
  const { CanonicalEncoder, FrameReader, LineReader, MsgpackMessageCodec, JsonMessageCodec } = await import('mcp-msgpack-transport/wire');
  const { ReadBuffer } = await import('@modelcontextprotocol/sdk/shared/stdio.js');

  // One tools/call result whose payload is 5 MiB (an image as base64 text: what both wires carry today).
  const base64Length = 5 * MiB - 120;
  const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'image', data: 'QUJD'.repeat(base64Length / 4), mimeType: 'image/png' }] } };
  const frame = Buffer.from(new CanonicalEncoder().encodeFrame(message));
  const line = Buffer.from(JSON.stringify(message) + '\n');
  const chunksOf = (bytes) => {
    const chunks = [];
    for (let at = 0; at < bytes.length; at += 64 * KiB) chunks.push(Buffer.from(bytes.subarray(at, at + 64 * KiB)));
    return chunks;
  };
  const frameChunks = chunksOf(frame);
  const lineChunks = chunksOf(line);
  const msgpack = new MsgpackMessageCodec();
  const json = new JsonMessageCodec();

  const time = (fn) => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  };
  /** Times one reader over all chunks; `check` gets what the handler returned for the last item. */
  const timeReader = (Reader, chunks, handle, check) => () =>
    time(() => {
      const reader = new Reader();
      let got;
      for (const chunk of chunks) reader.push(chunk, (item) => (got = handle(item)));
      if (!check(got)) throw new Error(`${Reader.name} lost or garbled the message`);
    });
  const ours = {
    frames: timeReader(
      FrameReader,
      frameChunks,
      (p) => p.length,
      (n) => n === frame.length - 4,
    ),
    framesDecoded: timeReader(
      FrameReader,
      frameChunks,
      (p) => msgpack.decodeMessage(p),
      (m) => m?.id === 1,
    ),
    lines: timeReader(
      LineReader,
      lineChunks,
      (l) => l.length,
      (n) => n === line.length - 1,
    ),
    linesDecoded: timeReader(
      LineReader,
      lineChunks,
      (l) => json.decodeMessage(l),
      (m) => m?.id === 1,
    ),
  };
  // What the SDK's stdio transports do per chunk: append, then try to read a message.
  const sdk = {
    // Framing only: the same appends and newline searches, without parsing the final line.
    framing: () =>
      time(() => {
        const buffer = new ReadBuffer();
        for (let i = 0; i < lineChunks.length; i++) {
          buffer.append(lineChunks[i]);
          if (i < lineChunks.length - 1) {
            if (buffer.readMessage() !== null) throw new Error('early message');
          } else if (buffer._buffer.indexOf('\n') !== line.length - 1) throw new Error('newline not found');
        }
      }),
    decoded: () =>
      time(() => {
        const buffer = new ReadBuffer();
        let got = null;
        for (const chunk of lineChunks) {
          buffer.append(chunk);
          got = buffer.readMessage() ?? got;
        }
        if (got?.id !== 1) throw new Error('bad decode');
      }),
  };
  // Warm up, then alternate.
  for (const fn of [...Object.values(ours), ...Object.values(sdk)]) fn();
  const t = await rounds(roundCount, { ...ours, sdkFraming: sdk.framing, sdkDecoded: sdk.decoded });

  console.log(`(a) one message with a ${fmt(frame.length / MiB)} MiB payload in ${frameChunks.length} chunks of 64 KiB (median of ${roundCount} rounds, ms)`);
  const row = (label, ms, ratio) => console.log(`    ${label.padEnd(58)} ${fmt(ms, 3).padStart(9)} ms   ${ratio}`);
  row('SDK ReadBuffer, framing only (append + newline search)', median(t.sdkFraming), '1');
  row('our FrameReader (msgpack-v1), framing only', median(t.frames), `${fmt(medianRatio(t.frames, t.sdkFraming), 4)}x  (target <= 0.05)`);
  row('our LineReader (JSON), framing only', median(t.lines), `${fmt(medianRatio(t.lines, t.sdkFraming), 4)}x  (target <= 0.05)`);
  row('SDK ReadBuffer + JSON.parse + zod (what its transport does)', median(t.sdkDecoded), '1');
  row('our FrameReader + guarded decode + validation', median(t.framesDecoded), `${fmt(medianRatio(t.framesDecoded, t.sdkDecoded), 4)}x`);
  row('our LineReader + JSON.parse + validation', median(t.linesDecoded), `${fmt(medianRatio(t.linesDecoded, t.sdkDecoded), 4)}x`);
  console.log();
}

// (b) ------------------------------------------------------------------------------------------------

async function connect(variant) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { StdioMsgpackClientTransport } = await import('mcp-msgpack-transport');
  const args = [SCRIPT, '--serve', variant.server];
  const transport =
    variant.client === 'sdk' ? new StdioClientTransport({ command: process.execPath, args, stderr: 'inherit' }) : new StdioMsgpackClientTransport({ command: process.execPath, args, wire: variant.client });
  const client = new Client({ name: 'measure', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const VARIANTS = {
  'ours msgpack': { client: 'msgpack', server: 'ours' },
  'ours json': { client: 'json', server: 'ours' },
  'SDK stdio': { client: 'sdk', server: 'sdk' },
};

async function measureThroughput(roundCount, calls) {
  const clients = {};
  for (const [name, variant] of Object.entries(VARIANTS)) clients[name] = await connect(variant);
  const text = 'hello, stdio';
  // Each run returns calls/s (wall clock) and CPU microseconds per call in both processes together: the
  // machine may be shared, and CPU per call is much less disturbed by other load than the wall clock.
  const run = (client, inFlight) => async () => {
    const childPid = client.transport.pid;
    const cpuStart = process.cpuUsage();
    const childStart = childCpuMicros(childPid);
    const start = performance.now();
    let next = 0;
    const worker = async () => {
      while (next++ < calls) await client.callTool({ name: 'echo', arguments: { text } });
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    const childCpu = childCpuMicros(childPid) - childStart;
    return { rate: calls / seconds, cpuPerCall: (cpu.user + cpu.system + childCpu) / calls };
  };
  // Warm up: the SDK's Protocol, zod and both codecs take some thousands of calls to reach steady state.
  for (const client of Object.values(clients)) for (let i = 0; i < 3; i++) await run(client, 16)();

  for (const [label, inFlight] of [
    ['sequential', 1],
    ['16 in flight', 16],
  ]) {
    const variants = Object.fromEntries(Object.entries(clients).map(([name, client]) => [name, run(client, inFlight)]));
    const r = await rounds(roundCount, variants);
    const rate = (name) => r[name].map((x) => x.rate);
    const cpu = (name) => r[name].map((x) => x.cpuPerCall);
    console.log(`(b) tools/call echo, ${calls} calls ${label}, through a child process (median of ${roundCount} alternating rounds)`);
    for (const name of Object.keys(VARIANTS)) {
      const sdk = name === 'SDK stdio';
      const rateRatio = sdk ? '    1' : `${fmt(medianRatio(rate(name), rate('SDK stdio')))}x`;
      const cpuRatio = sdk ? '    1' : `${fmt(medianRatio(cpu(name), cpu('SDK stdio')))}x`;
      console.log(
        `    ${name.padEnd(14)} ${fmt(median(rate(name)), 0).padStart(7)} calls/s ${rateRatio.padStart(6)} the SDK's rate` +
          `   ${fmt(median(cpu(name)), 0).padStart(5)} us CPU/call ${cpuRatio.padStart(6)} the SDK's CPU`,
      );
    }
    console.log("    (target: >= 1.4x the SDK's rate)");
    console.log();
  }
  for (const client of Object.values(clients)) await client.close();
  await measureCodecCost();
}

/** User + system CPU of another process, in microseconds (Linux /proc; 0 where unavailable). */
function childCpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the stat line (11 and 12 after the command), in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = 100;

/** What the transport itself costs per message, in-process: the share of a call it could save at most. */
async function measureCodecCost() {
  const { MsgpackMessageCodec, JsonMessageCodec, FrameReader, LineReader } = await import('mcp-msgpack-transport/wire');
  const { ReadBuffer, serializeMessage } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
  const request = { jsonrpc: '2.0', id: 12345, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello, stdio' } } };
  const result = { jsonrpc: '2.0', id: 12345, result: { content: [{ type: 'text', text: 'hello, stdio' }] } };
  const msgpack = new MsgpackMessageCodec();
  const json = new JsonMessageCodec();
  const frames = new FrameReader();
  const lines = new LineReader();
  const readBuffer = new ReadBuffer();
  const paths = {
    'ours msgpack': (m) => frames.push(msgpack.encodeFrame(m), (p) => msgpack.decodeMessage(p)),
    'ours json': (m) => lines.push(Buffer.from(json.encodeLine(m)), (l) => json.decodeMessage(l)),
    'SDK stdio': (m) => {
      readBuffer.append(Buffer.from(serializeMessage(m)));
      readBuffer.readMessage();
    },
  };
  const n = 50_000;
  const perMessage = (fn) => () => {
    const start = performance.now();
    for (let i = 0; i < n; i++) fn(i & 1 ? result : request);
    return ((performance.now() - start) * 1000) / n;
  };
  const variants = Object.fromEntries(Object.entries(paths).map(([name, fn]) => [name, perMessage(fn)]));
  await rounds(2, variants); // warm up
  const r = await rounds(7, variants);
  console.log('(b) for scale: encode + frame + read + decode + validate of one small message, in-process (median of 7)');
  for (const name of Object.keys(paths)) console.log(`    ${name.padEnd(14)} ${fmt(median(r[name]), 2).padStart(7)} us/message`);
  console.log('    (a call is 4 such messages, 2 per process; compare with 1e6 / calls-per-second above)');
  console.log();
}

// (c) ------------------------------------------------------------------------------------------------

async function measureImages(roundCount) {
  const bytes = 5 * MiB;
  const clients = {};
  for (const name of Object.keys(VARIANTS)) clients[name] = await connect(VARIANTS[name]);
  const call = (client, twice) => async () => {
    const start = performance.now();
    const result = await client.callTool({ name: 'image', arguments: { bytes, twice } }, undefined, { timeout: 120_000 });
    const ms = performance.now() - start;
    if (Buffer.from(result.content[0].data, 'base64').length !== bytes) throw new Error('image lost bytes');
    return ms;
  };
  for (const twice of [false, true]) {
    // The SDK's stdio path cannot carry the base64 twice at this size (shown below), so it runs only once.
    const running = Object.entries(clients).filter(([name]) => !(twice && name === 'SDK stdio'));
    const variants = Object.fromEntries(running.map(([name, client]) => [name, call(client, twice)]));
    await rounds(1, variants); // warm up
    const r = await rounds(roundCount, variants);
    console.log(`(c) a 5 MiB image result end to end, base64 ${twice ? 'in content and structuredContent (as read_media_file)' : 'in content once'} (median of ${roundCount})`);
    for (const name of Object.keys(variants)) {
      const ratio = twice ? '' : `   ${fmt(medianRatio(r[name], r['SDK stdio']))}x the SDK's time`;
      console.log(`    ${name.padEnd(14)} ${fmt(median(r[name]), 1).padStart(8)} ms   works${ratio}`);
    }
  }
  for (const client of Object.values(clients)) await client.close();

  // The stock SDK stdio path: find the largest image that still arrives (its ReadBuffer caps a line at 10 MiB).
  for (const twice of [false, true]) {
    const works = async (size) => {
      const client = await connect(VARIANTS['SDK stdio']);
      let cause;
      client.onerror = (error) => (cause ??= error.message);
      try {
        const result = await client.callTool({ name: 'image', arguments: { bytes: size, twice } }, undefined, { timeout: 60_000 });
        return Buffer.from(result.content[0].data, 'base64').length === size ? true : 'wrong bytes';
      } catch (error) {
        return cause ? `${error.message}, after: ${cause}` : error.message;
      } finally {
        await client.close().catch(() => {});
      }
    };
    const at5 = await works(bytes);
    let low = 0;
    let high = 16 * MiB;
    let failure = at5 === true ? undefined : at5;
    while (high - low > 16 * KiB) {
      const mid = Math.floor((low + high) / 2);
      const outcome = await works(mid);
      if (outcome === true) low = mid;
      else {
        high = mid;
        failure ??= outcome;
      }
    }
    console.log(`    SDK stdio (base64 ${twice ? 'twice' : 'once'}): 5 MiB ${at5 === true ? 'works' : `FAILS (${at5})`}; largest image that arrives: ${fmt(low / MiB, 2)} MiB; above it: ${failure}`);
  }
  console.log();
}

// Last, so every declaration above is initialised.
if (process.argv[2] === '--serve') {
  await serve(process.argv[3]);
} else {
  await main(process.argv.includes('--quick'));
}
