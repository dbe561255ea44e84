// A mixed load on the media server over HTTP: `clients` SDK clients at once, each on our transport (half
// MessagePack with native bytes, half JSON), each opening a session, making a few calls of a mix (text,
// media of 64 KiB to 5 MiB, listings, a tree, searches, writes), then closing it with DELETE and opening the
// next, until `seconds` are over. Bounded: every call has a timeout, and the run stops at its deadline.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { percentile } from 'mcp-msgpack-bench';
import { callToolNative, HttpMsgpackClientTransport } from 'mcp-msgpack-transport';

const CALL_TIMEOUT_MS = 30_000;
/** Calls per session before the client closes it and opens another. */
const CALLS_PER_SESSION = 20;

/** The mix, by weight: what a coding agent does to a workspace, media included. */
const MIX = [
  [6, () => ({ name: 'read_text_file', arguments: { path: 'small.txt' } })],
  [2, () => ({ name: 'read_text_file', arguments: { path: 'large.txt' } })],
  [3, () => ({ name: 'read_media_file', arguments: { path: 'icon.png' } })],
  [2, () => ({ name: 'read_media_file', arguments: { path: 'photo.png' } })],
  [1, () => ({ name: 'read_media_file', arguments: { path: 'poster.png' } })],
  [3, () => ({ name: 'list_directory', arguments: { path: 'tree/d1' } })],
  [1, () => ({ name: 'directory_tree', arguments: { path: 'tree' } })],
  [1, () => ({ name: 'search_files', arguments: { path: 'tree', pattern: 'f1*' } })],
  [2, () => ({ name: 'get_file_info', arguments: { path: 'large.txt' } })],
  [2, (client) => ({ name: 'write_file', arguments: { path: `scratch/c${client}.txt`, content: `written by ${client} at ${Date.now()}\n`.repeat(50) } })],
];
const TOTAL_WEIGHT = MIX.reduce((sum, [weight]) => sum + weight, 0);

function pick(seed) {
  let at = seed % TOTAL_WEIGHT;
  for (const [weight, make] of MIX) {
    if (at < weight) return make;
    at -= weight;
  }
  return MIX[0][1];
}

/**
 * One session of client `index`: connect, `calls` calls (`pickCall(i)` makes the i-th), close (DELETE).
 * Latencies go to `latencies`.
 */
async function oneSession(url, root, index, calls, pickCall, deadline, latencies, counts) {
  const msgpack = index % 2 === 0;
  const transport = new HttpMsgpackClientTransport(url, { wire: msgpack ? 'msgpack' : 'json', nativeBytes: msgpack });
  const client = new Client({ name: `load-${index}`, version: '1.0.0' });
  await client.connect(transport);
  counts.sessions++;
  try {
    for (let i = 0; i < calls && performance.now() < deadline; i++) {
      const params = pickCall(i)(index);
      if (params.arguments.path) params.arguments.path = `${root}/${params.arguments.path}`;
      const started = performance.now();
      const options = { timeout: CALL_TIMEOUT_MS };
      const result = msgpack ? await callToolNative(client, params, options) : await client.callTool(params, undefined, options);
      latencies.push(performance.now() - started);
      if (result.isError) counts.toolErrors++;
      counts.calls++;
    }
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close();
  }
}

/**
 * Runs the load for `seconds` with `clients` clients against `url` (serving `root`); the calls made, their
 * p50/p95 latency, sessions opened, and the errors seen.
 */
export async function runMixedLoad(url, root, { clients = 32, seconds = 60 } = {}) {
  const deadline = performance.now() + seconds * 1000;
  const latencies = [];
  const counts = { calls: 0, sessions: 0, toolErrors: 0, failures: 0, firstFailure: undefined };
  await Promise.all(
    Array.from({ length: clients }, async (_, index) => {
      let seed = index * 104729;
      while (performance.now() < deadline) {
        try {
          const from = seed;
          await oneSession(url, root, index, CALLS_PER_SESSION, (i) => pick(from + i * 7919), deadline, latencies, counts);
        } catch (error) {
          counts.failures++;
          counts.firstFailure ??= String(error?.message ?? error);
        }
        seed += CALLS_PER_SESSION;
      }
    }),
  );
  return { ...counts, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

/**
 * What a server that has served anything has done once: one session on each wire (MessagePack with native
 * bytes, JSON), each making every call of the mix once, one after the other. A baseline for memory that
 * counts the code compiled and the modules loaded on first use, which a figure taken at boot lacks.
 */
export async function runWarmUp(url, root) {
  const latencies = [];
  const counts = { calls: 0, sessions: 0, toolErrors: 0, failures: 0 };
  const deadline = performance.now() + MIX.length * CALL_TIMEOUT_MS;
  for (const index of [0, 1]) await oneSession(url, root, index, MIX.length, (i) => MIX[i][1], deadline, latencies, counts);
  return counts;
}
