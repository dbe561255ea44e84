// Our clients, on their defaults, against a server on the Python MCP SDK (fixtures/py-mcp-server.py),
// over stdio and Streamable HTTP: both must work on the first try, on JSON. And a Python SDK client
// (fixtures/py-mcp-http-client.py, and py-mcp-stdio-client.py on stdio) against our server with per-message
// encoding (SPEC.md 7.4, 9.6): served JSON as
// before. The Python SDK comes from
// scripts/setup-py-mcp.sh (.ci/run runs it); without it these tests skip, except under CI=true, where its
// absence is a failure. Calls run with the SDK's timeout cut to a few seconds, so a client left unanswered
// fails instead of hanging.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport, McpHttpHandler, StdioMsgpackClientTransport, listenBun, listenNode, type WireSelection } from 'mcp-msgpack-transport';
import { closeQuietly, fixture, textOf, withTimeout } from './fixtures/stdio-helpers.js';
import { createNativeServer, mediaBytes } from './fixtures/native-tools.js';

const PYTHON = fileURLToPath(new URL('../../../../.cache/py-mcp/bin/python', import.meta.url));
const SERVER = fileURLToPath(new URL('../../test/fixtures/py-mcp-server.py', import.meta.url));
const STDIO_CLIENT = fileURLToPath(new URL('../../test/fixtures/py-mcp-stdio-client.py', import.meta.url));
const PY_CLIENT = fileURLToPath(new URL('../../test/fixtures/py-mcp-http-client.py', import.meta.url));
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
/** Connecting includes starting Python and importing the SDK, which takes a while on a loaded machine. */
const CONNECT = { timeout: 15_000 };
const CALL = { timeout: 5_000 };
const available = existsSync(PYTHON);
const missing = `the Python MCP SDK is not installed in .cache/py-mcp: run scripts/setup-py-mcp.sh`;

if (!available && process.env.CI === 'true') {
  it('the Python MCP SDK is installed (CI)', () => assert.fail(`${missing} (.ci/run does)`));
}

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill();
});

/** Starts the Python server on HTTP and reads the port it bound. */
async function startHttpServer(): Promise<URL> {
  const child = spawn(PYTHON, [SERVER, 'http'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  const port = await withTimeout(
    new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const match = /PORT (\d+)/.exec(text);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`the Python server exited (code ${code}) before listening`)));
    }),
    15_000,
    'the Python server to listen',
  );
  return new URL(`http://127.0.0.1:${port}/mcp`);
}

describe('our clients on their defaults against a Python SDK server', { skip: available ? false : missing, timeout: 60_000 }, () => {
  it('stdio: initialize, list tools and call one, on JSON (the offer is ignored)', async () => {
    const selections: WireSelection[] = [];
    const transport = new StdioMsgpackClientTransport({ command: PYTHON, args: [SERVER, 'stdio'], stderr: 'ignore', onwireselected: (s) => selections.push(s) });
    const client = new Client({ name: 'python-peer-test', version: '1.0.0' });
    try {
      await client.connect(transport, CONNECT);
      assert.equal(client.getServerVersion()?.name, 'py-test-server');
      assert.deepEqual(
        (await client.listTools(undefined, CALL)).tools.map((t) => t.name),
        ['echo'],
      );
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'from Python ✓' } }, undefined, CALL)), 'from Python ✓');
      assert.equal(transport.wire, 'json');
      assert.deepEqual(selections, [{ wire: 'json', reason: 'upgrade-not-accepted' }]);
    } finally {
      await closeQuietly(client);
    }
  });

  it('Streamable HTTP: its 400 to a MessagePack body makes the client re-send as JSON, and it works', async () => {
    const url = await startHttpServer();
    const selections: WireSelection[] = [];
    // What each POST asked for: the per-message signal (SPEC.md 9.6) rides in Accept, which the Python
    // server must read as any Accept listing JSON and SSE.
    const accepts: string[] = [];
    const recording = (async (input: string | URL | Request, init?: RequestInit) => {
      if (init?.method === 'POST') accepts.push(new Headers(init.headers).get('accept') ?? '');
      return fetch(input, init);
    }) as typeof fetch;
    const transport = new HttpMsgpackClientTransport(url, { onwireselected: (s) => selections.push(s), fetch: recording });
    const client = new Client({ name: 'python-peer-test', version: '1.0.0' });
    try {
      await client.connect(transport, CONNECT);
      assert.equal(client.getServerVersion()?.name, 'py-test-server');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'over HTTP' } }, undefined, CALL)), 'over HTTP');
      assert.equal(transport.wire, 'json');
      assert.deepEqual(selections, [{ wire: 'json', reason: 'bad-request', status: 400 }]);
      assert.match(accepts[0]!, /^application\/msgpack;replies=any,/, 'the first POST offered per-message replies');
      assert.ok(
        accepts.slice(1).every((a) => a === 'application/json, text/event-stream'),
        JSON.stringify(accepts),
      );
    } finally {
      await closeQuietly(client);
    }
  });
});

describe('a Python SDK stdio client against our server on its defaults', { skip: available ? false : missing, timeout: 60_000 }, () => {
  it('initializes and calls a tool with a short and a long text, on JSON lines (it makes no offer, so never sees a frame)', async () => {
    // The long text is what a mixed stream (SPEC.md 7.4) would send as a frame: the Python reader would fail on one.
    const child = spawn(PYTHON, [STDIO_CLIENT, process.execPath, fixture('stdio-server')], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const code = await withTimeout(new Promise<number | null>((resolve) => child.on('exit', resolve)), 30_000, 'the Python client to finish');
    assert.equal(code, 0, err.slice(-2000));
    assert.equal(out.trim(), 'OK stdio-test-server');
  });
});

/** Runs the Python client against `url` and returns the line it prints. */
function runPythonClient(url: URL): Promise<{ tools: string[]; imageData: string; largeRows: number }> {
  const child = spawn(PYTHON, [PY_CLIENT, url.href], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return withTimeout(
    new Promise((resolve, reject) => {
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`the Python client exited ${code}: ${err.slice(-2000)}`))));
    }),
    30_000,
    'the Python client',
  );
}

for (const kind of isBun ? (['node:http', 'Bun.serve'] as const) : (['node:http'] as const)) {
  // On its defaults: it probes with server/discover (2026-07-28), which this SDK v1 server answers with -32022
  // listing the handshake versions it serves, so the client falls back to initialize.
  describe(`a Python SDK client against our server with per-message encoding (${kind})`, { skip: available ? false : missing, timeout: 60_000 }, () => {
    // One-body replies; held replies on the defaults (SPEC.md 9.6.2: a result that comes alone is one JSON
    // body); every reply on a stream ('always').
    const modes = [
      { name: 'one-body replies', enableJsonResponse: true, replyStreams: undefined, replyType: 'application/json' },
      { name: 'held replies', enableJsonResponse: false, replyStreams: undefined, replyType: 'application/json' },
      { name: 'streams', enableJsonResponse: false, replyStreams: 'always', replyType: 'text/event-stream' },
    ] as const;
    for (const { name, enableJsonResponse, replyStreams, replyType } of modes) {
      it(`gets JSON, media as base64, no signal header (${name})`, async () => {
        const handler = new McpHttpHandler({ createServer: createNativeServer, nativeBytes: true, enableJsonResponse, replyStreams, encoding: 'cheapest-cpu' });
        const seen: { type: string; signal: string | null; vary: string | null }[] = [];
        const handle = handler.handle.bind(handler);
        handler.handle = async (req, options) => {
          const response = await handle(req, options);
          if (req.method === 'POST') seen.push({ type: response.headers.get('content-type') ?? '', signal: response.headers.get('mcp-msgpack-wire'), vary: response.headers.get('vary') });
          return response;
        };
        const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
        try {
          const got = await runPythonClient(running.url);
          assert.ok(got.tools.includes('image') && got.tools.includes('large-object'), JSON.stringify(got.tools));
          assert.equal(got.imageData, Buffer.from(mediaBytes(30)).toString('base64'));
          assert.equal(got.largeRows, 6000);
          const bodies = seen.filter((s) => s.type !== '');
          assert.ok(bodies.length >= 4, JSON.stringify(seen));
          // JSON text only (the -32022 that sends its server/discover probe to initialize is a JSON body too), and
          // none of it carries the per-message signal, which only a client asking for MessagePack can get.
          assert.ok(
            bodies.every((s) => /^(application\/json|text\/event-stream)/.test(s.type) && s.signal === null && s.vary === 'Accept, Content-Type, Accept-Encoding'),
            JSON.stringify(seen),
          );
          const replies = bodies.filter((s) => s.type.startsWith(replyType));
          assert.ok(replies.length >= 3, JSON.stringify(seen));
        } finally {
          await running.close();
        }
      });
    }
  });
}
