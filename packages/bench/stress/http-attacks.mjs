// A hostile client's suite against an MCP endpoint over HTTP (issue 24), for measuring what it leaves behind
// in the server: hostile msgpack bodies (every shape of hostile-payloads.mjs at 1 and 4 MiB),
// bodies over the limit, malformed and non-JSON-RPC bodies, header variants (Content-Type, Accept, Host,
// Origin, protocol version, methods), guessed and cross-session ids, forged Last-Event-ID, duplicate ids,
// requests before notifications/initialized, path escapes through the tools, a flood of sessions that send
// initialize and nothing else (past the session cap), and idle and byte-at-a-time connections. Every case is
// bounded in time; the answer's status is counted, nothing is asserted (the tests do that).
import { request } from 'node:http';
import { connect } from 'node:net';
import { CanonicalEncoder } from 'mcp-msgpack-transport/wire';
import { hostilePayload } from './hostile-payloads.mjs';

const CASE_TIMEOUT_MS = 30_000;
const encoder = new CanonicalEncoder();
const MSGPACK = { 'content-type': 'application/msgpack', accept: 'application/msgpack, application/vnd.mcp-msgpack.stream' };
const JSON_TYPES = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const NATIVE_OFFER = { extensions: { 'io.github.mcp-msgpack/native-bytes': { version: 1 } } };

/** One raw request (node:http, so Host and every other header are ours to set); its status and body. */
function send(url, { method = 'POST', headers = {}, body, timeoutMs = CASE_TIMEOUT_MS } = {}) {
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method, headers: { host: url.host, ...headers }, agent: false });
    const timer = setTimeout(() => req.destroy(new Error('case timeout')), timeoutMs);
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: `error ${error.code ?? error.message}`, headers: {}, body: Buffer.alloc(0) });
    });
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

/** A session on the MessagePack wire with native bytes negotiated, initialized unless `initialized: false`. */
async function openSession(url, { initialized = true } = {}) {
  const params = { protocolVersion: '2025-11-25', capabilities: NATIVE_OFFER, clientInfo: { name: 'attacker', version: '1' } };
  const init = await send(url, { headers: MSGPACK, body: encoder.encode({ jsonrpc: '2.0', id: 0, method: 'initialize', params }) });
  const sessionId = init.headers['mcp-session-id'];
  if (sessionId && initialized) await send(url, { headers: { ...MSGPACK, 'mcp-session-id': sessionId }, body: encoder.encode({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  return { status: init.status, sessionId };
}

const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** Runs every case against `url` (the media server serving `root`); counts of answers by status. */
export async function runAttacks(url, root, { log = () => {}, sessionFlood = 1_100, idleConnections = 500, forgedResumes = 10 } = {}) {
  const statuses = new Map();
  let cases = 0;
  const note = (status) => {
    cases++;
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  };
  const session = await openSession(url);
  const inSession = { ...MSGPACK, 'mcp-session-id': session.sessionId };

  log('hostile msgpack bodies');
  const shapes = ['bin0', 'keyorders', 'uniqmap', 'emptymap', 'emptyarr', 'map1', 'str2', 'nil', 'mixed', 'uniqmap-edge', 'keyorders-edge'];
  for (const mib of [1, 3.99]) for (const shape of shapes) note((await send(url, { headers: inSession, body: hostilePayload(shape, Math.floor(mib * 2 ** 20)) })).status);

  log('bodies over the limit');
  const big = Buffer.alloc(5 * 2 ** 20, 0x90);
  for (let i = 0; i < 5; i++) note((await send(url, { headers: inSession, body: big })).status);
  for (let i = 0; i < 5; i++) note((await send(url, { headers: { ...inSession, 'transfer-encoding': 'chunked' }, body: big })).status);

  log('malformed bodies');
  const malformed = [
    ...Array.from({ length: 20 }, (_, i) => Buffer.from(Array.from({ length: 64 + i * 37 }, (_, j) => (j * 131 + i * 17) & 0xff))),
    ...Array.from({ length: 10 }, (_, i) => encoder.encode(call(100 + i, 'read_text_file', { path: `${root}/small.txt` })).subarray(0, 10 + i * 3)),
    ...[0xc7, 0xc8, 0xc9, 0xd4, 0xd8].map((ext) => Buffer.from([0x81, 0xa2, 0x69, 0x64, ext, 0x01, 0x01, 0x00, 0x00])),
    Buffer.from([0xc1]),
    Buffer.concat([Buffer.alloc(200, 0x91), Buffer.from([0xc0])]),
    Buffer.from([0x81, 0xa9, ...Buffer.from('__proto__'), 0x80]),
    Buffer.from([0x81, 0x01, 0x02]),
    Buffer.from([0x81, 0xa1, 0x78, 0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0]),
    ...Array.from({ length: 5 }, (_, i) => encoder.encode({ hello: i, jsonrpc: '1.0' })),
    Buffer.alloc(0),
  ];
  for (const body of malformed) note((await send(url, { headers: inSession, body })).status);
  for (let i = 0; i < 10; i++) note((await send(url, { headers: { ...JSON_TYPES, 'mcp-session-id': session.sessionId }, body: `{"jsonrpc":"2.0","id":${i},"method":` })).status);

  log('header variants');
  const ping = encoder.encode({ jsonrpc: '2.0', id: 9, method: 'ping' });
  const variants = [
    ...['text/plain', 'application/x-msgpack', 'application/msgpack; v=2', 'multipart/form-data', ''].map((type) => ({ ...inSession, 'content-type': type })),
    ...['text/html', 'application/json', 'application/msgpack', '*/x', ''].map((accept) => ({ ...inSession, accept })),
    ...['evil.com', 'localhost.evil.com', '127.0.0.1.nip.io', '[::2]', 'attacker:80'].map((host) => ({ ...inSession, host })),
    ...['http://evil.com', 'null', 'http://localhost.evil.com', 'https://127.0.0.1.nip.io', 'file://'].map((origin) => ({ ...inSession, origin })),
    ...['1999-01-01', 'latest', '2025-11-25;x', 'x'.repeat(200), '2024-13-45'].map((version) => ({ ...inSession, 'mcp-protocol-version': version })),
  ];
  for (const headers of variants) note((await send(url, { headers, body: ping })).status);
  for (const method of ['PUT', 'PATCH', 'OPTIONS']) note((await send(url, { method, headers: inSession, body: ping })).status);

  log('guessed and foreign session ids, forged Last-Event-ID');
  for (let i = 0; i < 50; i++) note((await send(url, { headers: { ...MSGPACK, 'mcp-session-id': crypto.randomUUID() }, body: ping })).status);
  // Each holds its GET stream open until the case's 2 s are over.
  for (let i = 0; i < forgedResumes; i++) {
    note(
      (await send(url, { method: 'GET', headers: { accept: 'application/vnd.mcp-msgpack.stream', 'mcp-session-id': session.sessionId, 'last-event-id': `${crypto.randomUUID()}_${i}` }, timeoutMs: 2_000 }))
        .status,
    );
  }
  for (let i = 0; i < 5; i++) note((await send(url, { method: 'DELETE', headers: { 'mcp-session-id': crypto.randomUUID() } })).status);

  log('duplicate ids');
  for (let i = 0; i < 5; i++) {
    const body = encoder.encode(call(500 + i, 'read_media_file', { path: `${root}/poster.png` }));
    const both = await Promise.all([send(url, { headers: inSession, body }), send(url, { headers: inSession, body })]);
    for (const answer of both) note(answer.status);
  }

  log('requests before notifications/initialized');
  for (let i = 0; i < 10; i++) {
    const early = await openSession(url, { initialized: false });
    note((await send(url, { headers: { ...MSGPACK, 'mcp-session-id': early.sessionId }, body: encoder.encode(call(1, 'list_directory', { path: root })) })).status);
    await send(url, { method: 'DELETE', headers: { 'mcp-session-id': early.sessionId } });
  }

  log('path escapes through the tools');
  const escapes = ['../../../../etc/passwd', `${root}/../../etc/shadow`, '/etc/passwd', `${root}/./../${root.split('/').pop()}-evil/x`, `${root}'`, `${root}/\u0000x`, '~/.ssh/id_rsa', `${root}/tree/../../x`];
  const tools = [
    ['read_text_file', (p) => ({ path: p })],
    ['read_media_file', (p) => ({ path: p })],
    ['write_file', (p) => ({ path: p, content: 'x' })],
    ['list_directory', (p) => ({ path: p })],
    ['get_file_info', (p) => ({ path: p })],
  ];
  let id = 1000;
  for (const target of escapes) for (const [name, args] of tools) note((await send(url, { headers: inSession, body: encoder.encode(call(id++, name, args(target))) })).status);

  log(`${sessionFlood} sessions that send initialize and nothing else`);
  for (let i = 0; i < sessionFlood; i++) note((await openSession(url, { initialized: false })).status);

  log(`${idleConnections} idle connections and 50 byte-at-a-time ones, held 3 s`);
  const sockets = [];
  for (let i = 0; i < idleConnections; i++) {
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    sockets.push(socket);
  }
  const slow = `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: ${'a'.repeat(40)}`;
  const dribblers = Array.from({ length: 50 }, () => {
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    sockets.push(socket);
    let at = 0;
    return setInterval(() => at < slow.length && socket.write(slow[at++]), 60);
  });
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  for (const timer of dribblers) clearInterval(timer);
  for (const socket of sockets) socket.destroy();
  cases += sockets.length;

  await send(url, { method: 'DELETE', headers: { 'mcp-session-id': session.sessionId } });
  return { cases, statuses: Object.fromEntries([...statuses].sort((a, b) => String(a[0]).localeCompare(String(b[0])))) };
}
