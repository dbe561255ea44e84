// A/B of two builds of the transport on the HTTP server path, in one process: the same McpHttpHandler
// from each build answers small tools/call requests (handle(Request), no sockets), in alternating batches,
// and the process CPU per call is compared round by round. For checking that a refactor costs nothing:
//   node packages/bench/measure/ab-server-builds.mjs BEFORE_CHECKOUT AFTER_CHECKOUT [msgpack|json] [stateless|modern]
// `modern`: 2026-07-28 requests (the `_meta` envelope and SEP-2243 headers, no session) to SDK v2's McpServer.
// (each checkout built: `git worktree add ../before REV && (cd ../before && npm ci)`). Numbers, not a test.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { encode } from '@msgpack/msgpack';

const [beforeDir, afterDir, wire = 'msgpack', mode] = process.argv.slice(2);
if (!beforeDir || !afterDir) {
  console.error('usage: node packages/bench/measure/ab-server-builds.mjs BEFORE_CHECKOUT AFTER_CHECKOUT [msgpack|json] [stateless|modern]');
  process.exit(2);
}
const entry = (dir) => pathToFileURL(resolve(dir, 'packages/transport-msgpack/dist/esm/index.js')).href;
const builds = { before: entry(beforeDir), after: entry(afterDir) };
const stateless = mode === 'stateless';
const modern = mode === 'modern';
const MODERN = '2026-07-28';
const echo = async () => ({ content: [{ type: 'text', text: 'hello world' }] });
function makeServer() {
  if (modern) {
    const s = new McpServerV2({ name: 'ab', version: '1' });
    s.registerTool('echo', {}, echo);
    return s;
  }
  const s = new McpServer({ name: 'ab', version: '1' });
  s.tool('echo', {}, echo);
  return s;
}
const handlers = {};
for (const [k, p] of Object.entries(builds)) {
  const m = await import(p);
  handlers[k] = new m.McpHttpHandler({ createServer: makeServer, stateless, enableJsonResponse: true });
}
const ct = wire === 'msgpack' ? 'application/msgpack' : 'application/json';
const accept = wire === 'msgpack' ? 'application/msgpack, application/json, text/event-stream' : 'application/json, text/event-stream';
const body = (msg) => (wire === 'msgpack' ? encode(msg) : JSON.stringify(msg));
async function session(h) {
  if (stateless || modern) return undefined;
  const r = await h.handle(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': ct, accept, host: '127.0.0.1' },
      body: body({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
    }),
  );
  await r.arrayBuffer();
  const sid = r.headers.get('mcp-session-id');
  const n = await h.handle(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': ct, accept, host: '127.0.0.1', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      body: body({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }),
  );
  await n.arrayBuffer();
  return sid;
}
const sids = {};
for (const k of Object.keys(handlers)) sids[k] = await session(handlers[k]);
let id = 1;
/** A 2026-07-28 request's envelope: the revision, the client's identity and its capabilities, in `_meta`. */
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
async function call(k) {
  const headers = { 'content-type': ct, accept, host: '127.0.0.1', 'mcp-protocol-version': modern ? MODERN : '2025-11-25' };
  if (sids[k]) headers['mcp-session-id'] = sids[k];
  const params = { name: 'echo', arguments: {} };
  if (modern) {
    headers['mcp-method'] = 'tools/call';
    headers['mcp-name'] = 'echo';
    params._meta = envelope;
  }
  const r = await handlers[k].handle(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: body({ jsonrpc: '2.0', id: id++, method: 'tools/call', params }) }));
  const b = new Uint8Array(await r.arrayBuffer());
  if (r.status !== 200) throw new Error(`${k} ${r.status} ${new TextDecoder().decode(b)}`);
}
const BATCH = 500,
  ROUNDS = 30;
for (const k of Object.keys(handlers)) for (let i = 0; i < 500; i++) await call(k);
const cpu = { before: [], after: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const k of r % 2 ? ['after', 'before'] : ['before', 'after']) {
    const t = process.cpuUsage();
    for (let i = 0; i < BATCH; i++) await call(k);
    const d = process.cpuUsage(t);
    cpu[k].push((d.user + d.system) / BATCH);
  }
}
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const ratios = cpu.after.map((a, i) => a / cpu.before[i]).sort((x, y) => x - y);
console.log(
  `${wire} ${mode ?? 'session'}: before ${med(cpu.before).toFixed(1)} us/call, after ${med(cpu.after).toFixed(1)} us/call, after/before median ${med(ratios).toFixed(3)} (range ${ratios[0].toFixed(2)}..${ratios.at(-1).toFixed(2)})`,
);
