// SDK v2 (@modelcontextprotocol/server, /client 2.4) on protocol 2025-11-25, over stdio and HTTP, in each pairing
// of {v2's own transport, ours} x {client, server} that works there: tools listed, a text tool and an image
// tool called with the bytes intact, native bytes negotiated when both ends are ours on MessagePack. Plus
// v2's Client reacting to our HTTP client's errors as it does to its own transport's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import {
  callToolNative,
  HttpMsgpackClientTransport,
  listenBun,
  listenNode,
  McpHttpHandler,
  NATIVE_BYTES_CAPABILITY,
  StdioMsgpackClientTransport,
  StreamableHTTPError,
  type NativeImageContent,
  type RunningHttpServer,
} from 'mcp-msgpack-transport';
// Internal (not exported): tests import such modules by relative path to the sources, compiled with them.
import { writeNodeResponse } from '../src/http/node-adapter.js';
import { createHttpTestServer, serverKinds } from './fixtures/http-helpers.js';
import { fixture, withTimeout } from './fixtures/stdio-helpers.js';
import { createV2Server, V2_IMAGE } from './fixtures/v2-server.js';

const LIMIT = 30_000;
const PROTOCOL = '2025-11-25';

type V2Transport = Parameters<Client['connect']>[0];

function newClient(): Client {
  return new Client({ name: 'v2-client', version: '1.0.0' });
}

/** Lists, calls the text tool, calls the image tool through callTool (base64) and callToolNative (bytes). */
async function exercise(client: Client, { native }: { native: boolean }): Promise<void> {
  assert.equal(client.getNegotiatedProtocolVersion(), PROTOCOL);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['caller', 'echo', 'image']);
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'from v2' } });
  assert.deepEqual(echo.content, [{ type: 'text', text: 'from v2' }]);
  const image = await client.callTool({ name: 'image', arguments: {} });
  const block = (image.content as { type: string; data: string; mimeType: string }[])[0]!;
  assert.equal(block.type, 'image');
  assert.equal(block.mimeType, 'image/png');
  assert.ok(Buffer.from(block.data, 'base64').equals(V2_IMAGE), 'callTool: image bytes intact');
  const nativeResult = await callToolNative(client, { name: 'image', arguments: {} });
  const bytes = (nativeResult.content[0] as NativeImageContent).data;
  assert.ok(bytes instanceof Uint8Array && Buffer.from(bytes).equals(V2_IMAGE), 'callToolNative: image bytes intact');
  const negotiated = client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY] !== undefined;
  assert.equal(negotiated, native, `native bytes ${native ? '' : 'not '}negotiated`);
}

describe('SDK v2 over stdio (2025-11-25)', { timeout: LIMIT }, () => {
  const server = (which: 'ours' | 'v2') => ({ command: process.execPath, args: [fixture('v2-stdio-server'), which] });

  it('v2 Client + our stdio client (msgpack, native bytes) -> v2 McpServer on our stdio server', async () => {
    const transport = new StdioMsgpackClientTransport({ ...server('ours'), nativeBytes: true });
    const client = newClient();
    await withTimeout(client.connect(transport), 10_000, 'connect');
    try {
      assert.equal(transport.wire, 'msgpack');
      await exercise(client, { native: true });
    } finally {
      await client.close();
    }
  });

  it("v2 Client + v2's own StdioClientTransport -> v2 McpServer on our stdio server (answers in JSON)", async () => {
    const client = newClient();
    await withTimeout(client.connect(new StdioClientTransport(server('ours'))), 10_000, 'connect');
    try {
      await exercise(client, { native: false });
    } finally {
      await client.close();
    }
  });

  it("v2 Client + our stdio client (wire 'json') -> v2 McpServer on v2's own StdioServerTransport", async () => {
    const client = newClient();
    await withTimeout(client.connect(new StdioMsgpackClientTransport({ ...server('v2'), wire: 'json', nativeBytes: true })), 10_000, 'connect');
    try {
      await exercise(client, { native: false });
    } finally {
      await client.close();
    }
  });
});

/** v2's own Streamable HTTP server transport (one session) behind node:http. */
async function startV2OwnServer(): Promise<{ url: URL; close(): Promise<void> }> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
  const mcp = createV2Server({ native: false });
  await mcp.connect(transport);
  const http: Server = createServer((req, res) => {
    void webRequest(req).then(
      async (request) => writeNodeResponse(res, await transport.handleRequest(request)),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: async () => {
      await mcp.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function webRequest(req: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
  return new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body });
}

describe('SDK v2 over Streamable HTTP (2025-11-25)', { timeout: LIMIT }, () => {
  let ours: RunningHttpServer;
  let handler: McpHttpHandler;
  before(async () => {
    handler = new McpHttpHandler({ createServer: () => createV2Server(), nativeBytes: true });
    ours = await listenNode(handler);
  });
  after(async () => {
    await ours.close();
  });

  it('v2 Client + our HTTP client (msgpack, native bytes) -> v2 McpServer on our handler', async () => {
    const transport = new HttpMsgpackClientTransport(ours.url, { nativeBytes: true });
    const client = newClient();
    await client.connect(transport);
    try {
      await exercise(client, { native: true });
      assert.equal(transport.wire, 'msgpack');
    } finally {
      await client.close();
    }
  });

  it("v2 Client + v2's own StreamableHTTPClientTransport -> v2 McpServer on our handler", async () => {
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(ours.url));
    try {
      await exercise(client, { native: false });
    } finally {
      await client.close();
    }
  });

  it("v2 Client + our HTTP client -> v2's own WebStandardStreamableHTTPServerTransport (falls back to JSON)", async () => {
    const v2Server = await startV2OwnServer();
    const transport = new HttpMsgpackClientTransport(v2Server.url, { nativeBytes: true });
    const client = newClient();
    try {
      await client.connect(transport);
      assert.equal(transport.wire, 'json');
      await exercise(client, { native: false });
    } finally {
      await client.close();
      await v2Server.close();
    }
  });
});

for (const kind of serverKinds) {
  describe(`a v2 McpServer on our HTTP handler sees the HTTP request (${kind})`, { timeout: LIMIT }, () => {
    let running: { url: URL; close(): Promise<void> };
    before(async () => {
      const handler = new McpHttpHandler({ createServer: () => createV2Server() });
      running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
    });
    after(async () => {
      await running.close();
    });

    const clients: [string, (url: URL, requestInit: RequestInit) => V2Transport][] = [
      ['our HTTP client, msgpack', (url, requestInit) => new HttpMsgpackClientTransport(url, { requestInit })],
      ['our HTTP client, JSON', (url, requestInit) => new HttpMsgpackClientTransport(url, { requestInit, wire: 'json' })],
      ["v2's own client", (url, requestInit) => new StreamableHTTPClientTransport(url, { requestInit })],
    ];
    for (const [name, make] of clients) {
      it(`ctx.http.req.headers in a tool handler (${name})`, async () => {
        const client = newClient();
        await client.connect(make(running.url, { headers: { 'x-caller': name } }));
        try {
          assert.deepEqual((await client.callTool({ name: 'caller', arguments: {} })).content, [{ type: 'text', text: name }]);
        } finally {
          await client.close();
        }
      });
    }
  });
}

describe("v2's Client and our HTTP client's errors", { timeout: LIMIT }, () => {
  let ours: RunningHttpServer;
  /** A 2025-11-25-only server: our handler with an SDK v1 McpServer, which cannot serve 2026-07-28 (-32022). */
  let legacy: RunningHttpServer;
  before(async () => {
    ours = await listenNode(new McpHttpHandler({ createServer: () => createV2Server() }));
    legacy = await listenNode(new McpHttpHandler({ createServer: () => createHttpTestServer() }));
  });
  after(async () => {
    await ours.close();
    await legacy.close();
  });

  const transports: [string, (url: URL) => V2Transport][] = [
    ["v2's own transport", (url) => new StreamableHTTPClientTransport(url)],
    ['ours, msgpack', (url) => new HttpMsgpackClientTransport(url)],
    ['ours, JSON', (url) => new HttpMsgpackClientTransport(url, { wire: 'json' })],
  ];

  for (const [name, make] of transports) {
    it(`auto version negotiation against a 2025-11-25 server falls back to initialize (${name})`, async () => {
      // The server/discover probe is refused (-32022 in a 400); v2's Client then initializes as on 2025-11-25.
      const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(make(legacy.url));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), PROTOCOL);
        assert.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'after fallback' } })).content, [{ type: 'text', text: 'after fallback' }]);
      } finally {
        await client.close();
      }
    });

    it(`a call after the session was terminated fails with an SdkHttpError, status 400 (${name})`, async () => {
      const transport = make(ours.url);
      const client = newClient();
      await client.connect(transport);
      await (transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
      const error: unknown = await client.callTool({ name: 'echo', arguments: { text: 'x' } }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      await client.close();
      assert.ok(error instanceof SdkHttpError, `${String(error)}`);
      assert.equal(error.status, 400);
    });
  }

  it('our error carries the fields of both generations', () => {
    const ours = new StreamableHTTPError(404, 'Error POSTing to endpoint: gone', { statusText: 'Not Found', text: '{}' });
    assert.equal(ours.code, 404);
    assert.equal(ours.message, 'Streamable HTTP error: Error POSTing to endpoint: gone');
    const error: unknown = ours;
    assert.ok(error instanceof SdkHttpError);
    assert.deepEqual({ status: error.status, statusText: error.statusText, text: error.data.text }, { status: 404, statusText: 'Not Found', text: '{}' });
  });
});
