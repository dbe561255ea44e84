// The client's redirectPolicy, as the SDK's client has it: 'same-origin' (default) follows a redirect only
// within the origin and otherwise fails with the reason, sending nothing to the other origin; 'follow'
// leaves redirects to fetch.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport, McpHttpHandler, type HttpMsgpackClientOptions } from 'mcp-msgpack-transport';
import { createHttpTestServer } from './fixtures/http-helpers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

interface Origin {
  base: string;
  /** Request paths this origin saw, in order. */
  seen: string[];
}

/** A loopback origin: /mcp is an MCP endpoint; /moved redirects (307) to `movedTo`, if set. */
async function origin(options: { movedTo?: () => string; mcp?: boolean }): Promise<Origin> {
  const handler = new McpHttpHandler({ createServer: createHttpTestServer });
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/moved' && options.movedTo) return void res.writeHead(307, { location: options.movedTo() }).end();
    if (req.url === '/mcp' && options.mcp) return void handler.handleNode(req, res).catch(() => res.destroy());
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    await handler.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function connect(url: string, options: HttpMsgpackClientOptions = {}): Promise<Client> {
  const client = new Client({ name: 'redirect-test', version: '1.0.0' });
  const transport = new HttpMsgpackClientTransport(new URL(url), options);
  cleanups.push(() => client.close());
  await client.connect(transport);
  return client;
}

async function echo(client: Client): Promise<unknown> {
  const result = await client.callTool({ name: 'echo', arguments: { text: 'here' } });
  return (result.content as { text: string }[])[0]!.text;
}

describe('HTTP client redirectPolicy', { timeout: 30_000 }, () => {
  it('same-origin (default): a redirect within the origin is followed', async () => {
    let self = '';
    const server = await origin({ mcp: true, movedTo: () => `${self}/mcp` });
    self = server.base;
    const client = await connect(`${server.base}/moved`);
    assert.equal(await echo(client), 'here');
    assert.ok(server.seen.includes('POST /mcp'));
  });

  it('same-origin (default): a redirect to another origin fails with the reason, and nothing reaches that origin', async () => {
    const target = await origin({ mcp: true });
    const redirector = await origin({ movedTo: () => `${target.base}/mcp` });
    await assert.rejects(connect(`${redirector.base}/moved`), (error: Error) => {
      assert.match(error.message, /Redirect to http:\/\/127\.0\.0\.1:\d+\/mcp not followed \(redirectPolicy: 'same-origin'\)/);
      return true;
    });
    assert.deepEqual(target.seen, []);
  });

  it("'follow': a redirect to another origin is left to fetch, which follows it", async () => {
    const target = await origin({ mcp: true });
    const redirector = await origin({ movedTo: () => `${target.base}/mcp` });
    const client = await connect(`${redirector.base}/moved`, { redirectPolicy: 'follow' });
    assert.equal(await echo(client), 'here');
    assert.ok(target.seen.includes('POST /mcp'));
  });
});
