// SEP-2243's custom headers on MCP 2026-07-28: our handler refuses a tools/call whose Mcp-Param-* headers are
// missing or disagree with the arguments its tool declares with x-mcp-header (400, -32020), on both wires, and
// lets the rest through: encoded values, numbers, null arguments, tools without declarations. SDK v2's Client
// mirrors the headers, through our client transport too; a server that changes its tools is re-read.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { Packr, Unpackr } from 'msgpackr';
import { HttpMsgpackClientTransport, McpHttpHandler, listenBun, listenNode } from 'mcp-msgpack-transport';
import { paramHeaderDeclarations, paramHeaderRefusal } from '../src/http/server/per-request/param-headers.js';
import { serverKinds } from './fixtures/http-helpers.js';

const LIMIT = 30_000;
const MODERN = '2026-07-28';
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

/** What the tools declare; `routed`'s declarations can be changed by a test (it then says list_changed). */
const state = { regionHeader: 'Region', listings: 0 };
const servers = new Set<Server>();

function makeServer(): Server {
  const server = new Server({ name: 'param-headers', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler('tools/list', async () => {
    state.listings++;
    const plain = { name: 'plain', inputSchema: { type: 'object' as const, properties: { region: { type: 'string' } } } };
    return {
      tools: [
        plain,
        {
          name: 'routed',
          inputSchema: {
            type: 'object' as const,
            properties: {
              region: { type: 'string', 'x-mcp-header': state.regionHeader },
              count: { type: 'integer', 'x-mcp-header': 'Count' },
              flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
              nested: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
              free: { type: 'string' },
            },
          },
        },
      ],
    };
  });
  server.setRequestHandler('tools/call', async (request) => ({ content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? {}) }] }));
  servers.add(server);
  return server;
}

function call(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: args, _meta } };
}

type Wire = 'json' | 'msgpack';

/** Posts one 2026-07-28 tools/call on a wire with the standard headers and `extra`; the status and the JSON-RPC reply. */
async function post(url: URL, wire: Wire, name: string, args: Record<string, unknown>, extra: Record<string, string>): Promise<{ status: number; reply: any }> {
  const body = call(name, args);
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name, ...extra };
  const response =
    wire === 'json'
      ? await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) })
      : await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/msgpack', accept: 'application/msgpack, application/vnd.mcp-msgpack.stream', ...headers },
          body: new Uint8Array(packr.pack(body)),
        });
  const type = response.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, reply: firstMessage(type, bytes) };
}

/** The JSON-RPC message of a reply in any of the four forms (one body or a stream, on either wire). */
function firstMessage(type: string, bytes: Uint8Array): any {
  if (type.startsWith('application/json')) return JSON.parse(new TextDecoder().decode(bytes));
  if (type.startsWith('text/event-stream')) {
    const data = new TextDecoder()
      .decode(bytes)
      .split('\n')
      .find((line) => line.startsWith('data:') && line.length > 6);
    return JSON.parse(data!.slice(5));
  }
  if (type.startsWith('application/msgpack')) return unpackr.unpack(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length; ) {
    const length = view.getUint32(at);
    const value = unpackr.unpack(bytes.subarray(at + 4, at + 4 + length));
    if ('jsonrpc' in value) return value;
    at += 4 + length;
  }
  return undefined;
}

const base64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('Mcp-Param-* declarations and comparison, unit', () => {
  it('reads declarations along properties chains only, at any depth', () => {
    const declarations = paramHeaderDeclarations({
      type: 'object',
      'x-mcp-header': 'Root',
      properties: {
        a: { type: 'string', 'x-mcp-header': 'A' },
        b: { type: 'object', properties: { c: { type: 'integer', 'x-mcp-header': 'C' } } },
        list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
        either: { anyOf: [{ type: 'string', 'x-mcp-header': 'Either' }] },
        empty: { type: 'string', 'x-mcp-header': '' },
      },
    });
    assert.deepEqual(declarations, [
      { path: ['a'], header: 'A', type: 'string' },
      { path: ['b', 'c'], header: 'C', type: 'integer' },
    ]);
    assert.deepEqual(paramHeaderDeclarations(undefined), []);
  });

  it('compares header and argument as the spec converts them', () => {
    const declarations = [
      { path: ['n'], header: 'N', type: 'integer' },
      { path: ['b'], header: 'B', type: 'boolean' },
      { path: ['s'], header: 'S', type: 'string' },
    ];
    const check = (args: unknown, headers: Record<string, string>) => paramHeaderRefusal(declarations, args, new Headers(headers));
    assert.equal(check({ n: 5, b: true, s: '' }, { 'mcp-param-n': '5', 'mcp-param-b': 'true', 'mcp-param-s': '=?base64??=' }), undefined);
    assert.equal(check({ n: -2.5 }, { 'mcp-param-n': '-2.50' }), undefined);
    assert.equal(check({ s: { nested: 1 } }, {}), undefined, 'no header can carry an object');
    assert.equal(check({ n: Number.MAX_SAFE_INTEGER + 2 }, {}), undefined, 'nor an unsafe integer');
    assert.equal(check('not an object', {}), undefined);
    const refused = check({ n: 5 }, { 'mcp-param-n': '5e0' });
    assert.equal(refused?.status, 400);
    assert.equal(refused?.code, -32020);
    assert.deepEqual((refused?.data as { mismatch: { header: string } } | undefined)?.mismatch.header, 'Mcp-Param-N');
    assert.equal(check({ b: false }, { 'mcp-param-b': '0' })?.code, -32020);
  });
});

for (const kind of serverKinds) {
  describe(`2026-07-28: Mcp-Param-* headers checked against x-mcp-header arguments (${kind})`, { timeout: LIMIT }, () => {
    let running: { url: URL; close(): Promise<void> };
    before(async () => {
      const handler = new McpHttpHandler({ createServer: makeServer });
      running = kind === 'Bun.serve' ? await listenBun(handler as never) : await listenNode(handler);
    });
    after(async () => {
      await running.close();
    });

    for (const wire of ['json', 'msgpack'] as const) {
      it(`${wire}: a missing header gets 400 and -32020 naming it, answering the call's id`, async () => {
        const { status, reply } = await post(running.url, wire, 'routed', { region: 'eu' }, {});
        assert.equal(status, 400);
        assert.equal(reply.id, 9);
        assert.equal(reply.error.code, -32020);
        assert.equal(reply.error.data.mismatch.header, 'Mcp-Param-Region');
        assert.match(reply.error.message, /region="eu" but the Mcp-Param-Region header is absent/);
      });

      it(`${wire}: a header that disagrees, or a broken base64 sentinel, gets 400 and -32020`, async () => {
        for (const [args, headers] of [
          [{ region: 'eu' }, { 'mcp-param-region': 'us' }],
          [{ region: 'eu' }, { 'mcp-param-region': '=?base64?ZXU?=' }],
          [{ region: 'eu' }, { 'mcp-param-region': '=?base64?Z!!U=?=' }],
          [{ count: 42 }, { 'mcp-param-count': '43' }],
          [{ flag: true }, { 'mcp-param-flag': 'TRUE' }],
          [{ nested: { zone: 'a' } }, { 'mcp-param-zone': 'b' }],
          [{ region: 'eu', count: 1 }, { 'mcp-param-region': 'eu' }],
        ] as const) {
          const { status, reply } = await post(running.url, wire, 'routed', args, headers);
          assert.equal(status, 400, JSON.stringify(args));
          assert.equal(reply.error.code, -32020, JSON.stringify(args));
        }
      });

      it(`${wire}: agreeing headers get the call answered: plain, base64-encoded, numbers, booleans, nested, padded`, async () => {
        for (const [args, headers] of [
          [{ region: 'eu' }, { 'mcp-param-region': 'eu' }],
          [{ region: 'Zürich ' }, { 'mcp-param-region': base64('Zürich ') }],
          [{ region: '=?base64?ZXU' }, { 'mcp-param-region': '=?base64?ZXU' }],
          [{ count: 42 }, { 'mcp-param-count': '42.0' }],
          [{ flag: false }, { 'mcp-param-flag': 'false' }],
          [{ nested: { zone: 'a' } }, { 'Mcp-Param-Zone': '  a  ' }],
          [{ region: null, free: 'x' }, {}],
          [{}, { 'mcp-param-region': 'ignored when the argument is absent' }],
        ] as const) {
          const { status, reply } = await post(running.url, wire, 'routed', args, headers);
          assert.equal(status, 200, JSON.stringify(args));
          assert.deepEqual(JSON.parse(reply.result.content[0].text), args);
        }
      });

      it(`${wire}: a tool without declarations needs no header, and an unknown tool is not refused for one`, async () => {
        const plain = await post(running.url, wire, 'plain', { region: 'eu' }, {});
        assert.equal(plain.status, 200);
        assert.equal(plain.reply.result.content[0].text, '{"region":"eu"}');
        const unknown = await post(running.url, wire, 'nowhere', { region: 'eu' }, {});
        assert.notEqual(unknown.reply?.error?.code, -32020);
      });
    }

    it("SDK v2's Client mirrors the headers through our client transport, on both wires, and its calls pass", async () => {
      for (const wire of ['msgpack', 'json'] as const) {
        const client = new Client({ name: 'mirror', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
        const transport = new HttpMsgpackClientTransport(running.url, { wire });
        await client.connect(transport as never);
        try {
          await client.listTools();
          const result = await client.callTool({ name: 'routed', arguments: { region: 'Zürich', count: 7, flag: true } });
          assert.deepEqual(JSON.parse((result.content as { text: string }[])[0]!.text), { region: 'Zürich', count: 7, flag: true });
          assert.equal(transport.wire, wire);
        } finally {
          await client.close();
        }
      }
    });

    it('the declarations are read once per server instance and again after tools/list_changed', async () => {
      const before = state.listings;
      for (let i = 0; i < 3; i++) assert.equal((await post(running.url, 'json', 'routed', { region: 'eu' }, { 'mcp-param-region': 'eu' })).status, 200);
      assert.ok(state.listings - before <= 1, `listed ${state.listings - before} times for 3 calls on a reused server`);
      state.regionHeader = 'Area';
      try {
        for (const server of servers) await server.sendToolListChanged().catch(() => {});
        const { status, reply } = await post(running.url, 'json', 'routed', { region: 'eu' }, { 'mcp-param-region': 'eu' });
        assert.equal(status, 400);
        assert.equal(reply.error.data.mismatch.header, 'Mcp-Param-Area');
        assert.equal((await post(running.url, 'json', 'routed', { region: 'eu' }, { 'mcp-param-area': 'eu' })).status, 200);
      } finally {
        state.regionHeader = 'Region';
        for (const server of servers) await server.sendToolListChanged().catch(() => {});
      }
    });
  });
}
