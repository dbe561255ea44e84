// A Host header that cannot be the authority of a URL (`a b`, `[::1`, `localhost:99999`, `localhost:PORT.evil.com`,
// `localhost:PORT@evil.com`, an empty one) is answered alike on node:http, on Bun.serve and by the fetch handler
// (SPEC.md 9.4, issue 39): 403 while DNS-rebinding protection is on (the Host is not allowed), 400 with a JSON-RPC
// error (-32000, data.reason "invalid-host") while it is off. Before, with the checks off, such a Host reached a
// `new URL()` built from it: a 500 "Invalid URL" (and, on Bun, some of them served under the bare path).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listenBun, listenNode, McpHttpHandler, WebHttpMsgpackServerTransport } from 'mcp-msgpack-transport';
import { createHttpTestServer, serverKinds } from './fixtures/http-helpers.js';

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Hosts that are no authority, for a server on `port`. */
const malformedHosts = (port: number): string[] => [`localhost:${port}.evil.com`, `localhost:${port}@evil.com`, 'a b', '[::1', '', 'localhost:99999', 'a/b', '999999999999'];

interface Reply {
  status: number;
  body: string;
}

/** The status and body of a POST of `initialize` to 127.0.0.1:port with this Host, written raw (a client would fix the Host). */
function rawPost(port: number, host: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const head = ['POST /mcp HTTP/1.1', `Host: ${host}`, 'Content-Type: application/json', `Accept: ${JSON_HEADERS.accept}`, `Content-Length: ${initialize.length}`, 'Connection: close'];
    let text = '';
    socket.on('connect', () => socket.write(`${head.join('\r\n')}\r\n\r\n${initialize}`));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('end', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!status) return reject(new Error(`no HTTP reply: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ status: Number(status[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no reply within 5 s')));
  });
}

/** Asserts the 400 for a malformed Host: a JSON-RPC error naming the Host, never a 500. */
function assertInvalidHost(reply: Reply, host: string): void {
  assert.equal(reply.status, 400, `${JSON.stringify(host)}: ${reply.body}`);
  // A chunked body on node:http: the JSON object is the one line that starts with `{`.
  const json = reply.body.split('\r\n').find((line) => line.startsWith('{')) ?? reply.body;
  const error = JSON.parse(json) as { id: unknown; error: { code: number; message: string; data?: { reason?: string } } };
  assert.equal(error.id, null);
  assert.equal(error.error.code, -32000);
  assert.equal(error.error.data?.reason, 'invalid-host', host);
  assert.ok(error.error.message.includes(`Invalid Host header: ${host}`), error.error.message);
}

for (const kind of serverKinds) {
  for (const protection of [false, true]) {
    describe(`a malformed Host on ${kind}, DNS-rebinding protection ${protection ? 'on' : 'off'}`, () => {
      let running: { url: URL; close(): Promise<void> };
      before(async () => {
        const handler = new McpHttpHandler({ createServer: createHttpTestServer, enableDnsRebindingProtection: protection });
        running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
      });
      after(() => running.close());

      it(protection ? 'is 403, as any Host not allowed' : 'is 400 with a JSON-RPC error, never 500', async () => {
        const port = Number(running.url.port);
        for (const host of malformedHosts(port)) {
          const reply = await rawPost(port, host);
          if (protection) assert.equal(reply.status, 403, `${JSON.stringify(host)}: ${reply.body}`);
          else assertInvalidHost(reply, host);
        }
      });

      it('serves a well-formed Host after them (the server is unharmed)', async () => {
        const port = Number(running.url.port);
        for (const host of [`127.0.0.1:${port}`, `LOCALHOST:${port}`]) assert.equal((await rawPost(port, host)).status, 200, host);
      });
    });
  }
}

/** A fetch Request of `initialize` with this Host (null: none) and a URL of its own. */
const postWithHost = (host: string | null): Request => new Request('http://localhost:8080/mcp', { method: 'POST', headers: host === null ? JSON_HEADERS : { ...JSON_HEADERS, host }, body: initialize });

/** 403 with DNS-rebinding protection on (the Host is not allowed), else the 400 of assertInvalidHost. */
async function assertRefused(response: Response, host: string, protection: boolean): Promise<void> {
  if (!protection) return assertInvalidHost({ status: response.status, body: await response.text() }, host);
  assert.equal(response.status, 403, host);
  await response.body?.cancel();
}

describe('a malformed Host given to the fetch handler', () => {
  it('is 400 with protection off, 403 with it on, and a Request without a Host is served by its URL', async () => {
    for (const protection of [false, true]) {
      const handler = new McpHttpHandler({ createServer: createHttpTestServer, enableDnsRebindingProtection: protection });
      try {
        for (const host of malformedHosts(8080)) {
          await assertRefused(await handler.handle(postWithHost(host)), host, protection);
        }
        if (!protection) {
          const served = await handler.handle(postWithHost(null));
          assert.equal(served.status, 200);
          await served.body?.cancel();
        }
      } finally {
        await handler.close();
      }
    }
  });
});

describe('a malformed Host given to a transport used on its own', () => {
  it('is 400 invalid-host with protection off, 403 with it on (the transport makes the check itself)', async () => {
    for (const protection of [false, true]) {
      for (const host of malformedHosts(8080)) {
        // Stateless, so one transport per request.
        const transport = new WebHttpMsgpackServerTransport({ sessionIdGenerator: undefined, enableDnsRebindingProtection: protection });
        await transport.start();
        try {
          await assertRefused(await transport.handleRequest(postWithHost(host)), host, protection);
        } finally {
          await transport.close();
        }
      }
    }
  });
});
