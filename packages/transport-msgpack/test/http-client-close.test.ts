// Our HTTP client ends its session when it closes (issue 32, N2): the server's session (and whatever it
// holds, such as a bridge's child process) goes at once rather than at the idle expiry 30 minutes later;
// endSessionOnClose: false keeps it for a client that resumes it by id, and a server that is gone does not
// make close() fail or hang.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { serverKinds, startTestServer, waitUntil } from './fixtures/http-helpers.js';

for (const kind of serverKinds) {
  describe(`${kind}: HttpMsgpackClientTransport.close() and the server's session`, { timeout: 30_000 }, () => {
    it('close() sends DELETE: the session ends on the server', async () => {
      const server = await startTestServer(kind);
      try {
        const client = new Client({ name: 'close-test', version: '1' });
        await client.connect(new HttpMsgpackClientTransport(server.url));
        await client.listTools();
        assert.equal(server.handler.sessionCount, 1);
        await client.close();
        await waitUntil(() => server.handler.sessionCount === 0, 'the session to end');
      } finally {
        await server.close();
      }
    });

    it('endSessionOnClose: false keeps the session, and a later client resumes it by id', async () => {
      const server = await startTestServer(kind);
      try {
        const transport = new HttpMsgpackClientTransport(server.url, { endSessionOnClose: false });
        const client = new Client({ name: 'close-test', version: '1' });
        await client.connect(transport);
        const sessionId = transport.sessionId;
        assert.ok(sessionId);
        await client.close();
        assert.equal(server.handler.sessionCount, 1);
        const again = new HttpMsgpackClientTransport(server.url, { sessionId });
        await again.start();
        let answered: unknown;
        again.onmessage = (message) => (answered = message);
        await again.send({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
        await waitUntil(() => answered !== undefined, 'the resumed session to answer');
        assert.ok((answered as { result?: unknown }).result);
        await again.close();
        await waitUntil(() => server.handler.sessionCount === 0, 'the resumed session to end on close');
      } finally {
        await server.close();
      }
    });

    it('a server that went away: close() returns, without an error', async () => {
      const server = await startTestServer(kind);
      const client = new Client({ name: 'close-test', version: '1' });
      const errors: Error[] = [];
      const transport = new HttpMsgpackClientTransport(server.url);
      await client.connect(transport);
      transport.onerror = (error) => errors.push(error);
      await server.close();
      const started = Date.now();
      await client.close();
      assert.ok(Date.now() - started < 5_000, 'close() is bounded');
      // The GET stream's reconnection, cut by close(), reports its abort as before; the DELETE reports nothing.
      assert.deepEqual(
        errors.filter((error) => error.name !== 'AbortError'),
        [],
      );
    });
  });
}
