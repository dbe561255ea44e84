// A request sent while another with the same id is in flight (issue 24), against the media server over stdio
// and HTTP: how long the duplicate takes to get its -32600 'duplicate-id' error, and whether the first (a
// read_media_file of --media-mib MiB, still being answered) completes. Each round sends the two back to back (over HTTP
// 2 ms apart, on two connections: whichever reaches the session first is served, the other refused).
//   node packages/bench/measure/measure-duplicate-id.mjs [--runtime node|bun] [--rounds 20] [--media-mib 20]
// Bounded: a fixed number of rounds, every wait has a timeout, and the servers it starts are stopped.
// Numbers, not a test (the behaviour is tested in stdio-faults-server.test.ts and http-faults.test.ts).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { CanonicalEncoder, FrameReader, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { bunBinary, makeMediaLayout, optionOf, startMediaChild } from './lib/media-http-driver.mjs';

const argv = process.argv.slice(2);
const runtime = optionOf(argv, 'runtime', 'node');
const rounds = Number(optionOf(argv, 'rounds', 20));
const mediaMiB = Number(optionOf(argv, 'media-mib', 20));
const ANSWER_TIMEOUT_MS = 30_000;
const bin = new URL('../../filesystem-media-server/bin/mcp-filesystem-media-server.js', import.meta.url).pathname;
const encoder = new CanonicalEncoder();
const decoder = new MsgpackDecoder();
const layout = makeMediaLayout();
// Large enough that its answer takes a while: the second request comes while the first is still in flight.
writeFileSync(`${layout.root}/large.png`, randomBytes(mediaMiB * 2 ** 20));

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'duplicate-id', version: '1' } } };
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const first = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_media_file', arguments: { path: `${layout.root}/large.png` } } });
const twin = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_text_file', arguments: { path: `${layout.root}/small.txt` } } });

const isDuplicateRefusal = (message) => message?.error?.code === -32600 && message.error.data?.reason === 'duplicate-id';

/** What one round saw: ms from sending the pair to the refusal and to the other's answer, and whether each was right. */
function roundOf(t0, refusal, refusedAt, answer, answeredAt) {
  return { refusalMs: refusedAt - t0, firstMs: answeredAt - t0, refused: isDuplicateRefusal(refusal), completed: answer?.result !== undefined && !answer.result.isError };
}

/** Over stdio: one server child, MessagePack frames; replies to one id told apart by error or result. */
async function overStdio() {
  const child = spawn(runtime === 'bun' ? bunBinary() : process.execPath, [bin, layout.root], { stdio: ['pipe', 'pipe', 'pipe'] });
  // The server reports each refusal on stderr: those lines are expected, anything else is shown.
  child.stderr.on('data', (chunk) => {
    for (const line of String(chunk).split('\n')) if (line && !line.includes('already in flight')) console.error(line);
  });
  const seen = [];
  const frames = new FrameReader();
  child.stdout.on('data', (chunk) => frames.push(chunk, (payload) => seen.push({ at: performance.now(), message: decoder.decode(payload).value })));
  const waitFor = (test) =>
    new Promise((resolve, reject) => {
      const deadline = performance.now() + ANSWER_TIMEOUT_MS;
      const timer = setInterval(() => {
        const found = seen.find(test);
        if (found || performance.now() > deadline) {
          clearInterval(timer);
          if (found) resolve(found);
          else reject(new Error('no answer in time'));
        }
      }, 1);
    });
  try {
    child.stdin.write(encoder.encodeFrame(initialize));
    await waitFor((s) => s.message.id === 0);
    child.stdin.write(encoder.encodeFrame(initialized));
    const results = [];
    for (let id = 1; id <= rounds; id++) {
      const t0 = performance.now();
      child.stdin.write(Buffer.concat([encoder.encodeFrame(first(id)), encoder.encodeFrame(twin(id))]));
      try {
        const refusal = await waitFor((s) => s.message.id === id && s.message.error);
        const answer = await waitFor((s) => s.message.id === id && s.message.result);
        results.push(roundOf(t0, refusal.message, refusal.at, answer.message, answer.at));
      } catch {
        results.push({ refused: false, completed: false }); // one of the two never answered (the bug this measures)
      }
    }
    return results;
  } finally {
    child.kill('SIGKILL');
  }
}

const MSGPACK_HEADERS = { 'content-type': 'application/msgpack', accept: 'application/msgpack, application/vnd.mcp-msgpack.stream' };

/** A POST of one message; the last message of its answer (a stream or one body), and when it was read. */
async function post(url, sessionId, message) {
  const headers = { ...MSGPACK_HEADERS, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
  let response;
  let bytes;
  try {
    response = await fetch(url, { method: 'POST', headers, body: encoder.encode(message), signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    bytes = Buffer.from(await response.arrayBuffer());
  } catch {
    return { at: performance.now(), status: 'no answer' }; // never answered in time (the bug this measures)
  }
  let last;
  if (response.headers.get('content-type') === 'application/vnd.mcp-msgpack.stream') new FrameReader().push(bytes, (p) => (last = decoder.decode(p).value));
  else if (bytes.length > 0) last = decoder.decode(bytes).value;
  return { at: performance.now(), status: response.status, message: last, sessionId: response.headers.get('mcp-session-id') };
}

/** Over HTTP: one server child (listenNode or listenBun), one session; the two POSTs sent together. */
async function overHttp() {
  const child = await startMediaChild({ runtime, dir: layout.root });
  try {
    const init = await post(child.url, undefined, initialize);
    await post(child.url, init.sessionId, initialized);
    const results = [];
    let mediaFirst = 0;
    for (let id = 1; id <= rounds; id++) {
      const t0 = performance.now();
      // The second goes 2 ms after the first, on another connection: either may reach the session first, and
      // the one that does is the one served.
      const [media, text] = await Promise.all([post(child.url, init.sessionId, first(id)), delay(2).then(() => post(child.url, init.sessionId, twin(id)))]);
      const [refusal, answer] = isDuplicateRefusal(text.message) ? [text, media] : [media, text];
      if (refusal === text) mediaFirst++;
      const round = roundOf(t0, refusal.message, refusal.at, answer.message, answer.at);
      const bothServed = [media, text].every((reply) => reply.message?.result !== undefined && !reply.message.result.isError);
      results.push({ ...round, refused: round.refused && refusal.status === 400, bothServed });
    }
    console.log(`HTTP : the media read reached the session first in ${mediaFirst}/${rounds} rounds`);
    return results;
  } finally {
    await child.stop();
  }
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const fmt = (values) => {
  if (values.length === 0) return '-';
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms`;
};

try {
  console.log(`server on ${runtime}; ${rounds} rounds each: a ${mediaMiB} MiB read_media_file, then a read_text_file under the same id`);
  for (const [name, run] of [
    ['stdio', overStdio],
    ['HTTP', overHttp],
  ]) {
    const results = await run();
    const refused = results.filter((r) => r.refused && r.completed);
    // Both answered with results: the second reached the session only once the first was answered (HTTP).
    const oneAfterOther = results.filter((r) => !r.refused && r.completed && r.bothServed).length;
    const wrong = rounds - refused.length - oneAfterOther;
    console.log(
      `${name.padEnd(5)}: ${refused.length}/${rounds} rounds with both in flight: the duplicate refused (-32600 duplicate-id) after ${fmt(refused.map((r) => r.refusalMs))}, ` +
        `the first completed after ${fmt(refused.map((r) => r.firstMs))}, the refusal before it in ${refused.filter((r) => r.refusalMs <= r.firstMs).length}; ` +
        `${oneAfterOther} rounds served one after the other; ${wrong} rounds with an unanswered or wrong answer`,
    );
  }
} finally {
  layout.cleanup();
}
