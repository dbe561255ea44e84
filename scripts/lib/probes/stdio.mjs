// Runs the stdio cases against a server process: one process for the cases that leave the connection going
// (a fresh one whenever a case closed it anyway), a fresh one for each case that must close it (SPEC.md 5.1).
import { spawn } from 'node:child_process';
import { confirmsNativeBytes, frameOf, initializeRequest } from './corpus.mjs';
import { checkResponses, show } from './checks.mjs';
import { isResponse, MixedStreamReader } from './messages.mjs';

const REPLY_WAIT_MS = 15_000;
/** Past the ping's answer, how long a reply that a ping may have overtaken is waited for. */
const OVERTAKEN_WAIT_MS = 5_000;

class StdioPeer {
  #child;
  #reader = new MixedStreamReader();
  #queue = [];
  #waiters = [];
  closed = false;
  stderr = '';

  constructor(command, args, env) {
    this.#child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.#child.stderr.on('data', (chunk) => {
      if (this.stderr.length < 4000) this.stderr += chunk.toString();
    });
    this.#child.stdin.on('error', () => {});
    this.#child.stdout.on('data', (chunk) => {
      try {
        for (const message of this.#reader.push(chunk)) this.#deliver(message);
      } catch (error) {
        this.#deliver({ undecodable: String(error) });
      }
    });
    this.#child.stdout.on('end', () => this.#end());
    this.#child.on('exit', () => this.#end());
    this.#child.on('error', (error) => {
      this.stderr += String(error);
      this.#end();
    });
  }

  #end() {
    this.closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter(null);
  }

  #deliver(message) {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(message);
    else this.#queue.push(message);
  }

  send(bytes) {
    if (!this.closed) this.#child.stdin.write(bytes);
  }

  endInput() {
    this.#child.stdin.end();
  }

  /** The next message, or null once the server closed the connection, or `timeout`. */
  next(ms = REPLY_WAIT_MS) {
    if (this.#queue.length > 0) return Promise.resolve(this.#queue.shift());
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = (message) => {
        clearTimeout(timer);
        resolve(message);
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        resolve('timeout');
      }, ms);
      this.#waiters.push(waiter);
    });
  }

  /**
   * Responses up to the one with `id`, and past it until one with each of `alsoIds` came (a reply may overtake
   * another: a ping is answered before a tool call that started earlier): { responses (but the one with `id`),
   * last (that one, null or 'timeout') }.
   */
  async until(id, alsoIds = []) {
    const responses = [];
    let last;
    const waiting = () => last === undefined || alsoIds.some((also) => !responses.some((r) => r.id === also));
    while (waiting()) {
      const message = await this.next(last === undefined ? REPLY_WAIT_MS : OVERTAKEN_WAIT_MS);
      if (message === null || message === 'timeout') return { responses, last: last ?? message };
      if (message.undecodable) responses.push(message);
      else if (isResponse(message) && message.id === id) last = message;
      else if (isResponse(message)) responses.push(message);
      // Server notifications and requests (logging, list changes) are no answer to a case: skipped.
    }
    return { responses, last };
  }

  async stop() {
    this.#child.stdin.end();
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill('SIGTERM');
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), 3000);
      await new Promise((resolve) => this.#child.once('exit', resolve));
      clearTimeout(timer);
    }
  }
}

const frame = (message, vars) => frameOf({ message }, vars);

/** A case's bytes: its `frame`, or each of a list of them, in one write (corpus.mjs frameOf). */
function caseBytes(source, vars) {
  const parts = (Array.isArray(source) ? source : [source]).map((each) => frameOf(each, vars));
  return Buffer.concat(parts);
}

const WIRE_META = 'mcp-msgpack/wire';

/**
 * A server answering initialize, then told notifications/initialized. `kind`: 'plain' (a frame, no native
 * bytes), 'native' (a frame offering native bytes, which the server must confirm), or 'mixed' (a JSON line
 * offering the msgpack-v1 upgrade with `mixed: true`, which the server must accept with `mixed: true`: from then
 * on each message is a line or a frame, SPEC.md 7.4).
 */
async function startPeer(server, vars, kind = 'plain') {
  const peer = new StdioPeer(server.command, server.args, server.env);
  const request = initializeRequest('probe-init', kind === 'native');
  if (kind === 'mixed') {
    request.params._meta = { [WIRE_META]: { offer: ['msgpack-v1'], mixed: true } };
    peer.send(frameOf({ line: JSON.stringify(request) }, vars));
  } else peer.send(frame(request, vars));
  const { last } = await peer.until('probe-init');
  const refuse = async (why) => {
    await peer.stop();
    throw new Error(why);
  };
  if (!last || last === 'timeout' || !('result' in last)) await refuse(`stdio server did not initialize (${last === 'timeout' ? 'timeout' : show([last])}); stderr: ${peer.stderr}`);
  if (kind === 'native' && !confirmsNativeBytes(last.result)) await refuse(`native bytes offered in initialize on msgpack-v1, not confirmed (8.1): ${show([last.result.capabilities])}`);
  const accepted = last.result._meta?.[WIRE_META];
  if (kind === 'mixed' && (accepted?.accept !== 'msgpack-v1' || accepted?.mixed !== true))
    await refuse(`the msgpack-v1 upgrade with mixed: true offered on a JSON line, not accepted with mixed (7.1, 7.4): ${show([last.result._meta ?? null])}`);
  peer.send(frame({ jsonrpc: '2.0', method: 'notifications/initialized' }, vars));
  return peer;
}

/** Which connection a case runs on: a mixed stream, native bytes in force, or plain frames. */
const peerKind = (c) => (c.mixed ? 'mixed' : c.nativeBytes ? 'native' : 'plain');

/** Every stdio case against `server` ({command, args, env}): [{ id, rule, pass, detail }]. */
export async function runStdioCases(server, cases, vars) {
  const results = [];
  // One connection without native bytes, one with them in force (cases and fixture sets marked `nativeBytes`),
  // one a mixed stream (cases marked `mixed`).
  const peers = new Map();
  let pings = 0;
  for (const c of cases.filter((each) => !each.expect.closes)) {
    const key = peerKind(c);
    let peer = peers.get(key) ?? null;
    try {
      if (!peer) peers.set(key, (peer = await startPeer(server, vars, key)));
      peer.send(caseBytes(c.frame, vars));
      const pingId = `probe-ping-${++pings}`;
      // On a mixed stream the ping is a JSON line: every case there also shows a line after it is read (7.4).
      const ping = { jsonrpc: '2.0', id: pingId, method: 'ping' };
      peer.send(key === 'mixed' ? frameOf({ line: JSON.stringify(ping) }, vars) : frame(ping, vars));
      const { responses, last } = await peer.until(pingId, awaitedIds(c.expect));
      let detail = checkResponses(c.expect, responses, vars.dir);
      if (last === null) detail = `the server closed the connection (5.2: it goes on)${detail ? `; ${detail}` : ''}`;
      else if (last === 'timeout') detail = `no answer to the ping after the case within ${REPLY_WAIT_MS} ms${detail ? `; ${detail}` : ''}`;
      results.push({ id: c.id, rule: c.rule, pass: detail === null, detail });
      if (last === null || last === 'timeout') {
        await peer.stop();
        peers.delete(key);
      }
    } catch (error) {
      results.push({ id: c.id, rule: c.rule, pass: false, detail: String(error.message ?? error) });
      await peer?.stop();
      peers.delete(key);
    }
  }
  for (const peer of peers.values()) await peer.stop();
  for (const c of cases.filter((each) => each.expect.closes)) results.push(await runClosingCase(server, c, vars));
  return results;
}

/** The ids a case's answer comes under, to wait for past the ping's. */
function awaitedIds(expect) {
  if (expect.replies) return expect.replies;
  const id = expect.reply?.id ?? expect.error?.id;
  return id === undefined ? [] : [id];
}

/** 5.1: after the case's bytes the server closes the connection, answering nothing. */
async function runClosingCase(server, c, vars) {
  let peer;
  try {
    peer = await startPeer(server, vars, peerKind(c));
    peer.send(caseBytes(c.frame, vars));
    if (c.end) peer.endInput();
    const responses = [];
    for (;;) {
      const message = await peer.next();
      if (message === null) break;
      if (message === 'timeout') return { id: c.id, rule: c.rule, pass: false, detail: `the connection stayed open ${REPLY_WAIT_MS} ms after the case` };
      if (isResponse(message) || message.undecodable) responses.push(message);
    }
    const detail = responses.length === 0 ? null : `expected nothing before the close, got ${show(responses)}`;
    return { id: c.id, rule: c.rule, pass: detail === null, detail };
  } catch (error) {
    return { id: c.id, rule: c.rule, pass: false, detail: String(error.message ?? error) };
  } finally {
    await peer?.stop();
  }
}
