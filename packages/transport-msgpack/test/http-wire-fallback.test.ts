// When the HTTP client stops posting MessagePack: every kind of answer a server that does not take it gives
// (a table of wireDecision), then the client end to end, with a fetch that answers MessagePack posts the
// way such servers do and hands JSON ones to a real server. A genuine MessagePack error is an answer, never
// a reason to fall back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encode } from '@msgpack/msgpack';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport, type WireFallback, type WireSelection } from 'mcp-msgpack-transport';
import { wireDecision, type MsgpackPostAnswer, type WireDecision } from 'mcp-msgpack-transport/wire';
import { startTestServer, textOf, type TestHttpServer } from './fixtures/http-helpers.js';

const CALL = { timeout: 5_000 };
const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
const fallBack = (reason: string): WireDecision => ({ wire: 'json', reason: reason as never, resend: true });

describe('wireDecision: what an answer to a MessagePack POST says', () => {
  const rows: Array<[string, MsgpackPostAnswer, WireDecision]> = [
    ['415, any body (the SDK servers)', { status: 415, type: 'application/json' }, fallBack('unsupported-media-type')],
    ['400 with no Content-Type (Python SDK: "Invalid Content-Type header")', { status: 400, type: undefined }, fallBack('bad-request')],
    ['400 text/plain', { status: 400, type: 'text/plain' }, fallBack('bad-request')],
    ['400 JSON-RPC error in JSON', { status: 400, type: 'application/json', json: parseError }, fallBack('bad-request')],
    ['406 text/html', { status: 406, type: 'text/html' }, fallBack('not-acceptable')],
    ['200 JSON: an anonymous parse error', { status: 200, type: 'application/json', json: parseError }, fallBack('unreadable-body')],
    ['500 JSON: an anonymous parse error', { status: 500, type: 'application/json', json: parseError }, fallBack('unreadable-body')],
    ['200 JSON: a result', { status: 200, type: 'application/json', json: { jsonrpc: '2.0', id: 1, result: {} } }, { wire: 'json', reason: 'json-reply', resend: false }],
    ['200 SSE', { status: 200, type: 'text/event-stream' }, { wire: 'json', reason: 'json-reply', resend: false }],
    ['200 MessagePack', { status: 200, type: 'application/msgpack' }, { wire: 'msgpack' }],
    ['200 MessagePack stream', { status: 200, type: 'application/vnd.mcp-msgpack.stream' }, { wire: 'msgpack' }],
    ['400 MessagePack: a genuine error from a MessagePack server', { status: 400, type: 'application/msgpack' }, { wire: 'msgpack' }],
    ['415 MessagePack (a wire version it lacks, answered in MessagePack)', { status: 415, type: 'application/msgpack' }, { wire: 'msgpack' }],
    ['404 JSON error with our id (an ended session)', { status: 404, type: 'application/json', json: { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } } }, undefined],
    ['401 (authorization comes first)', { status: 401, type: 'application/json' }, undefined],
    ['500 text/plain to a later post', { status: 500, type: 'text/plain' }, undefined],
    ['500 text/html to the first post of a connection (a JSON body parser crashed)', { status: 500, type: 'text/html', firstOfConnection: true }, fallBack('server-error')],
    ['503 with no body to the first post of a connection', { status: 503, type: undefined, firstOfConnection: true }, fallBack('server-error')],
    ['401 to the first post of a connection', { status: 401, type: 'application/json', firstOfConnection: true }, undefined],
    ['500 MessagePack to the first post (a MessagePack server failing)', { status: 500, type: 'application/msgpack', firstOfConnection: true }, { wire: 'msgpack' }],
    [
      '200 JSON error with an id (the server read the request)',
      { status: 200, type: 'application/json', json: { jsonrpc: '2.0', id: 3, error: { code: -32700, message: 'x' } } },
      { wire: 'json', reason: 'json-reply', resend: false },
    ],
    ['202 with no body', { status: 202, type: undefined }, undefined],
  ];
  for (const [name, answer, expected] of rows) {
    it(name, () => assert.deepEqual(wireDecision(answer), expected));
  }
});

/** A fetch that answers every MessagePack POST with `answer()` and sends everything else on to the server. */
function rejectingMsgpack(answer: () => Response): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const type = new Headers(init?.headers).get('content-type');
    if (init?.method === 'POST' && type?.startsWith('application/msgpack')) return answer();
    return fetch(input, init);
  }) as typeof fetch;
}

describe('the HTTP client against servers that do not take MessagePack', { timeout: 30_000 }, () => {
  let server: TestHttpServer;
  before(async () => {
    server = await startTestServer('node:http');
  });
  after(() => server.close());

  async function connect(options: { fetch: typeof fetch; wire?: 'auto' | 'msgpack' }) {
    const fallbacks: WireFallback[] = [];
    const selections: WireSelection[] = [];
    const transport = new HttpMsgpackClientTransport(server.url, {
      ...options,
      onwirefallback: (fallback) => fallbacks.push(fallback),
      onwireselected: (selection) => selections.push(selection),
    });
    const client = new Client({ name: 'fallback-test', version: '1.0.0' });
    return { client, transport, fallbacks, selections, connected: client.connect(transport, CALL) };
  }

  const answers: Array<[string, () => Response, WireFallback['reason'], number]> = [
    ['400 with no Content-Type, as the Python SDK answers', () => new Response('Invalid Content-Type header', { status: 400 }), 'bad-request', 400],
    ['400 text/plain', () => new Response('Content-Type must be application/json', { status: 400, headers: { 'content-type': 'text/plain' } }), 'bad-request', 400],
    ['406 JSON', () => Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Acceptable' } }, { status: 406 }), 'not-acceptable', 406],
    ['200 with an anonymous JSON parse error', () => Response.json(parseError, { status: 200 }), 'unreadable-body', 200],
    ['500 with an anonymous JSON parse error', () => Response.json(parseError, { status: 500 }), 'unreadable-body', 500],
  ];
  for (const [name, answer, reason, status] of answers) {
    it(`${name}: re-sent as JSON, then JSON for good, said once`, async () => {
      const { client, transport, fallbacks, selections, connected } = await connect({ fetch: rejectingMsgpack(answer) });
      try {
        await connected;
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'via JSON' } }, undefined, CALL)), 'via JSON');
        assert.equal(transport.wire, 'json');
        assert.deepEqual(fallbacks, [{ from: 'msgpack', to: 'json', reason, status }]);
        assert.deepEqual(selections, [{ wire: 'json', reason, status }]);
      } finally {
        await client.close();
      }
    });
  }

  it('an HTML 500 to the first MessagePack post (a JSON-only server crashing on bytes): re-sent as JSON once, the connection works', async () => {
    const crash = () => new Response('<html><body>Internal Server Error</body></html>', { status: 500, headers: { 'content-type': 'text/html' } });
    const { client, transport, fallbacks, connected } = await connect({ fetch: rejectingMsgpack(crash) });
    try {
      await connected;
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after a crash' } }, undefined, CALL)), 'after a crash');
      assert.equal(transport.wire, 'json');
      assert.deepEqual(fallbacks, [{ from: 'msgpack', to: 'json', reason: 'server-error', status: 500 }]);
    } finally {
      await client.close();
    }
  });

  it('a server that answers 500 whatever the encoding: one JSON retry, then its 500 to the caller', async () => {
    const posts: string[] = [];
    const down = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      posts.push(new Headers(init?.headers).get('content-type') ?? '');
      return new Response('down', { status: 500 });
    }) as typeof fetch;
    const { client, connected } = await connect({ fetch: down });
    try {
      await assert.rejects(connected, (error: { code?: number }) => error.code === 500);
      assert.deepEqual(posts, ['application/msgpack', 'application/json']);
    } finally {
      await client.close();
    }
  });

  it('a 500 to a later MessagePack post is the answer, not retried as JSON', async () => {
    let crashFromNowOn = false;
    const posts: string[] = [];
    const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === 'POST') posts.push(new Headers(init.headers).get('content-type') ?? '');
      if (crashFromNowOn && init?.method === 'POST') return new Response('crash', { status: 500 });
      return fetch(input, init);
    }) as typeof fetch;
    const { client, fallbacks, connected } = await connect({ fetch: fetchFn });
    try {
      await connected;
      crashFromNowOn = true;
      posts.length = 0;
      await assert.rejects(client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, CALL), (error: { code?: number }) => error.code === 500);
      assert.equal(posts.length, 1);
      assert.deepEqual(fallbacks, []);
    } finally {
      await client.close();
    }
  });

  it('a later connection to an endpoint that fell back speaks JSON from its first request; one through another fetch does not', async () => {
    const types: string[] = [];
    const jsonOnly = rejectingMsgpack(() => new Response('Unsupported Media Type', { status: 415 }));
    const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === 'POST') types.push(new Headers(init.headers).get('content-type') ?? '');
      return jsonOnly(input, init);
    }) as typeof fetch;
    const first = await connect({ fetch: recording });
    await first.connected;
    await first.client.close();
    assert.equal(types[0], 'application/msgpack');
    types.length = 0;

    const second = await connect({ fetch: recording });
    try {
      await second.connected;
      assert.deepEqual(second.selections, [{ wire: 'json', reason: 'remembered' }]);
      assert.deepEqual(second.fallbacks, []);
      assert.ok(types.length > 0 && types.every((type) => type === 'application/json'), types.join());
    } finally {
      await second.client.close();
    }
    const forced = await connect({ fetch: recording, wire: 'msgpack' });
    await assert.rejects(forced.connected, (error: { code?: number }) => error.code === 415, "a forced wire is not the memory's to change");
    assert.equal(forced.transport.wire, 'msgpack');
    await forced.client.close();
    const elsewhere = await connect({ fetch: rejectingMsgpack(() => new Response('Unsupported Media Type', { status: 415 })) });
    await elsewhere.connected;
    assert.equal(elsewhere.fallbacks.length, 1, 'another fetch learns for itself');
    await elsewhere.client.close();
  });

  it('our server: MessagePack settles at the first answer, and nothing after it makes the client fall back', async () => {
    let rejectFromNowOn = false;
    const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (rejectFromNowOn) return new Response('nope', { status: 400 });
      return fetch(input, init);
    }) as typeof fetch;
    const { client, transport, fallbacks, selections, connected } = await connect({ fetch: fetchFn });
    try {
      await connected;
      assert.deepEqual(selections, [{ wire: 'msgpack', reason: 'msgpack-reply', status: 200 }]);
      rejectFromNowOn = true;
      await assert.rejects(client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, CALL), (error: { code?: number }) => error.code === 400);
      assert.equal(transport.wire, 'msgpack');
      assert.deepEqual(fallbacks, []);
    } finally {
      await client.close();
    }
  });

  it('a genuine MessagePack error from a MessagePack server is the answer: no fallback, its message surfaces', async () => {
    const genuine = () =>
      new Response(encode({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' } }), {
        status: 400,
        headers: { 'content-type': 'application/msgpack' },
      });
    const { client, transport, fallbacks, connected } = await connect({ fetch: rejectingMsgpack(genuine) });
    try {
      await assert.rejects(connected, /Mcp-Session-Id header is required/);
      assert.equal(transport.wire, 'msgpack');
      assert.deepEqual(fallbacks, []);
    } finally {
      await client.close();
    }
  });

  it("wire 'msgpack' forces it: a 415 is an error, not a fallback", async () => {
    const { client, transport, fallbacks, selections, connected } = await connect({
      wire: 'msgpack',
      fetch: rejectingMsgpack(() => new Response('Unsupported Media Type', { status: 415 })),
    });
    try {
      await assert.rejects(connected, (error: { code?: number }) => error.code === 415);
      assert.equal(transport.wire, 'msgpack');
      assert.deepEqual(fallbacks, []);
      assert.deepEqual(selections, [{ wire: 'msgpack', reason: 'forced' }]);
    } finally {
      await client.close();
    }
  });
});
