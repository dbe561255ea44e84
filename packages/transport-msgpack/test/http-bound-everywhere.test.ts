// A server bound to every address (0.0.0.0) still checks Host and Origin on the requests that arrive on
// loopback (SPEC.md 9.4: DNS rebinding reaches a loopback address whatever the bind), on node:http and on
// Bun.serve, which does not tell a request's local address (listenBun goes by the peer's). The shared probe
// set holds both language's servers to it (fixtures/probes/http.json, `bound-0.0.0.0`).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listenBun, listenNode, McpHttpHandler } from 'mcp-msgpack-transport';
import { createHttpTestServer, rawStatusOn, serverKinds } from './fixtures/http-helpers.js';

const JSON_ACCEPT = 'application/json, text/event-stream';
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });

/** The status of a POST of `initialize` to 127.0.0.1:port with these Host and Origin headers. */
function statusOf(port: number, host: string, origin?: string): Promise<number> {
  const socket = connect({ host: '127.0.0.1', port });
  const head = [
    `POST /mcp HTTP/1.1`,
    `Host: ${host}`,
    ...(origin ? [`Origin: ${origin}`] : []),
    'Content-Type: application/json',
    `Accept: ${JSON_ACCEPT}`,
    `Content-Length: ${initialize.length}`,
    'Connection: close',
  ];
  socket.on('connect', () => socket.write(`${head.join('\r\n')}\r\n\r\n${initialize}`));
  return rawStatusOn(socket);
}

for (const kind of serverKinds) {
  describe(`bound to 0.0.0.0 (${kind}): loopback arrivals are Host- and Origin-checked`, () => {
    let running: { url: URL; close(): Promise<void> };
    before(async () => {
      const handler = new McpHttpHandler({ createServer: createHttpTestServer });
      running = kind === 'Bun.serve' ? await listenBun(handler, { host: '0.0.0.0' }) : await listenNode(handler, { host: '0.0.0.0' });
    });
    after(() => running.close());

    it('a loopback Host and Origin are served; a foreign or look-alike one is 403', async () => {
      const port = Number(running.url.port);
      assert.equal(await statusOf(port, `127.0.0.1:${port}`), 200);
      assert.equal(await statusOf(port, `localhost:${port}`, `http://localhost:${port}`), 200);
      for (const host of ['evil.example', `localhost:${port}.evil.example`, `localhost:${port}@evil.example`]) assert.equal(await statusOf(port, host), 403, host);
      for (const origin of ['http://evil.example', `http://localhost:${port}.evil.example`]) assert.equal(await statusOf(port, `127.0.0.1:${port}`, origin), 403, origin);
    });
  });
}
