// `--serve` shared by several clients, some hostile, in front of a stdio server that misbehaves
// (fixtures/hostile-stdio-server.ts): what one session can do to another, what a client without the token
// can start, how many children there are, what a stalled or vanished party costs, and who ends the children.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { BRIDGE_BIN, LIMIT, runBridge, waitFor, withTimeout, type RunningBridge } from './helpers/bridge.js';
import { alive, childrenOf, rssOf } from './helpers/processes.js';
import { JSON_HEADERS, rawSession } from './helpers/raw-session.js';

const CHILD = fileURLToPath(new URL('./fixtures/hostile-stdio-server.js', import.meta.url));

async function startServe(options: string[] = [], childFlags: string[] = [], env?: NodeJS.ProcessEnv): Promise<{ bridge: RunningBridge; url: URL }> {
  const bridge = runBridge(['--serve', ...options, '--', process.execPath, CHILD, ...childFlags], env);
  await waitFor(() => bridge.stdout().includes('\n') || bridge.child.exitCode !== null, 'the URL on stdout', LIMIT);
  assert.equal(bridge.child.exitCode, null, bridge.stderr());
  return { bridge, url: new URL(bridge.stdout().split('\n')[0]!.trim()) };
}

async function ourClient(url: URL, options: { token?: string; elicit?: string } = {}): Promise<{ client: Client; transport: HttpMsgpackClientTransport }> {
  const transport = new HttpMsgpackClientTransport(url, options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {});
  const client = new Client({ name: 'ours', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  if (options.elicit !== undefined) {
    const answer = options.elicit;
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { answer } }));
  }
  await client.connect(transport);
  return { client, transport };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const call = (client: Client, name: string, args: Record<string, unknown> = {}, timeout = LIMIT) => client.callTool({ name, arguments: args }, { timeout }).then(textOf);

describe('--serve --shared: each session has an id space of its own', () => {
  it("a session's cancels reach none of another session's calls (F1)", async () => {
    const { bridge, url } = await startServe(['--shared']);
    const a = await ourClient(url);
    const b = await ourClient(url);
    try {
      const slow = call(a.client, 'slow', { ms: 1500, tag: 'a' }, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // B names every id the child might know A's call by (ids are small sequential numbers at the child).
      for (let id = 0; id <= 12; id++) await b.client.notification({ method: 'notifications/cancelled', params: { requestId: id, reason: 'B' } });
      assert.equal(await slow, 'slow done a');
      assert.doesNotMatch(bridge.stderr(), /cancelled/);
    } finally {
      await a.client.close();
      await b.client.close();
      await bridge.stop();
    }
  });

  it("the child's request goes to the session it serves; another can neither read, answer nor guess it (F2)", async () => {
    const { bridge, url } = await startServe(['--shared']);
    let bAsked = 0;
    const a = await ourClient(url, { elicit: 'from A' });
    const b = await ourClient(url);
    b.client.setRequestHandler('elicitation/create', async () => {
      bAsked++;
      return { action: 'accept', content: { answer: 'INJECTED BY B' } };
    });
    try {
      const elicited = call(a.client, 'elicit', { delayMs: 400 });
      // B speaks last (the old rule's pick), and guesses answers under the ids the bridge used to give.
      await b.client.listTools();
      for (let n = 1; n <= 10; n++) {
        await b.transport.send({ jsonrpc: '2.0', id: `mcp-msgpack-bridge-${n}`, result: { action: 'accept', content: { answer: 'GUESSED BY B' } } } as never);
      }
      assert.equal(await elicited, 'answered: from A');
      assert.equal(bAsked, 0);
    } finally {
      await a.client.close();
      await b.client.close();
      await bridge.stop();
    }
  });

  it("refuses the child's request, to the child, when two sessions have calls open (it cannot be attributed)", async () => {
    const { bridge, url } = await startServe(['--shared']);
    let asked = 0;
    const a = await ourClient(url);
    const b = await ourClient(url);
    for (const { client } of [a, b]) {
      client.setRequestHandler('elicitation/create', async () => {
        asked++;
        return { action: 'accept', content: { answer: 'x' } };
      });
    }
    try {
      const [elicited, slow] = await Promise.all([call(a.client, 'elicit', { delayMs: 300 }), call(b.client, 'slow', { ms: 1500 })]);
      assert.match(elicited, /^refused: mcp-msgpack-bridge: --shared cannot tell which client elicitation\/create is for \(2 sessions have calls open\)/);
      assert.equal(slow, 'slow done ');
      assert.equal(asked, 0);
      assert.match(bridge.stderr(), /cannot be put to one client/);
    } finally {
      await a.client.close();
      await b.client.close();
      await bridge.stop();
    }
  });
});

describe('--serve: who may start children, and how many', () => {
  it('with --token-env, a request without the token (or with another) is 401 and starts no child (F3)', async () => {
    const { bridge, url } = await startServe(['--token-env', 'ALICE_TOKEN', '--token-env', 'BOB_TOKEN'], [], { ...process.env, ALICE_TOKEN: 'alice-secret', BOB_TOKEN: 'bob-secret' });
    try {
      for (const authorization of [undefined, 'Bearer wrong', 'Bearer alice-secre', 'Basic alice-secret']) {
        const response = await fetch(url, {
          method: 'POST',
          headers: { ...JSON_HEADERS, ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
        });
        assert.equal(response.status, 401, authorization);
        assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
        await response.text();
      }
      assert.deepEqual(childrenOf(bridge.child.pid!), []);
      const alice = await ourClient(url, { token: 'alice-secret' });
      assert.match(await call(alice.client, 'pid'), /^\d+$/);
      // The clients' tokens are the bridge's, not the child's.
      assert.equal(await call(alice.client, 'env', { name: 'ALICE_TOKEN' }), 'undefined');
      // Alice's session, named by Bob: as if it did not exist.
      const stolen = await fetch(url, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: 'Bearer bob-secret', 'mcp-session-id': alice.transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'pid', arguments: {} } }),
      });
      assert.equal(stolen.status, 404);
      await stolen.text();
      await alice.client.close();
    } finally {
      await bridge.stop();
    }
  });

  it('MCP_MSGPACK_BRIDGE_TOKENS set in the environment is enough to require a token', async () => {
    const { bridge, url } = await startServe([], [], { ...process.env, MCP_MSGPACK_BRIDGE_TOKENS: 'one,two' });
    try {
      await assert.rejects(rawSession(url), /HTTP 401/);
      const session = await rawSession(url, { authorization: 'Bearer two' });
      assert.match(textOf((await session.call({ id: 1, method: 'tools/call', params: { name: 'pid', arguments: {} } })).result), /^\d+$/);
    } finally {
      await bridge.stop();
    }
  });

  it('--max-sessions: never more children than the cap, however fast sessions come and go (F3)', async () => {
    const { bridge, url } = await startServe(['--max-sessions', '3']);
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, childrenOf(bridge.child.pid!).length);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      const held = await Promise.all([rawSession(url), rawSession(url), rawSession(url)]);
      const refused = await fetch(url, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
      assert.equal(refused.status, 503);
      assert.ok(refused.headers.get('retry-after'));
      await refused.text();
      for (const session of held) await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session.sessionId } }).then((r) => r.text());
      // Churn: 8 clients at once, each opening and ending sessions as fast as it can.
      let served = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let attempt = 0, mine = 0; attempt < 60 && mine < 3; attempt++) {
            try {
              const session = await rawSession(url);
              served++;
              mine++;
              await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session.sessionId } }).then((r) => r.text());
            } catch {
              // Refused at the cap (503): what counts is the children. Wait a little, as Retry-After says.
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          }
        }),
      );
      assert.ok(served >= 4, `${served} sessions served`);
    } finally {
      sampling = false;
      await sampler;
      await bridge.stop();
    }
    assert.ok(most <= 3, `at most 3 children, saw ${most}`);
    assert.ok(most >= 1);
  });
});

describe('--serve: bounds on what a stalled party costs', () => {
  it('a child that stops reading: POSTs past the queue get 503 + Retry-After, never 202 and dropped (F4)', async () => {
    const { bridge, url } = await startServe(['--max-queue-bytes', String(1024 * 1024)]);
    try {
      const session = await rawSession(url);
      assert.equal(textOf((await session.call({ id: 1, method: 'tools/call', params: { name: 'stall', arguments: {} } })).result), 'stalled');
      const chunk = 'y'.repeat(256 * 1024);
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        const response = await session.post({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: chunk } });
        statuses.push(response.status);
        if (response.status === 503) {
          assert.ok(response.headers.get('retry-after'));
          assert.match(await response.text(), /has not read the last \d+ bytes/);
        } else await response.text();
      }
      const accepted = statuses.filter((status) => status === 202).length;
      assert.ok(statuses.includes(503), `statuses: ${statuses.join(',')}`);
      assert.deepEqual([...new Set(statuses)].sort(), [202, 503]);
      // 1 MiB of queue, the pipe's own buffer, and one message over: far below the 10 MiB posted.
      assert.ok(accepted * chunk.length <= 2.5 * 1024 * 1024, `${accepted} accepted`);
    } finally {
      await bridge.stop();
    }
  });

  it('several sessions with stalled children: past --max-total-queue-bytes every POST gets 503, given back as sessions end', async () => {
    const { bridge, url } = await startServe(['--max-queue-bytes', String(1024 * 1024), '--max-total-queue-bytes', String(2 * 1024 * 1024)]);
    try {
      const chunk = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'z'.repeat(256 * 1024) } };
      const size = JSON.stringify(chunk).length;
      // A child that reads holds none of the total once its messages are written: 3 MiB go through a 2 MiB cap
      // (a POST that finds the child still reading the last ones waits a little, as Retry-After says).
      const reading = await rawSession(url);
      let through = 0;
      for (let attempt = 0; attempt < 200 && through < 12; attempt++) {
        const response = await reading.post(chunk);
        await response.text();
        if (response.status === 202) through++;
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(through, 12);
      const sessions = await Promise.all(Array.from({ length: 5 }, () => rawSession(url)));
      for (const session of sessions) assert.equal(textOf((await session.call({ id: 1, method: 'tools/call', params: { name: 'stall', arguments: {} } })).result), 'stalled');
      // Four sessions fill what they can, in turn; each alone would take its own 1 MiB and more.
      let accepted = 0;
      const reasons = new Set<string>();
      for (let round = 0; round < 8; round++) {
        for (const session of sessions.slice(0, 4)) {
          const response = await session.post(chunk);
          if (response.status === 202) accepted++;
          else {
            assert.equal(response.status, 503);
            assert.ok(response.headers.get('retry-after'));
            reasons.add((JSON.parse(await response.text()) as { error: { data: { reason: string } } }).error.data.reason);
            continue;
          }
          await response.text();
        }
      }
      assert.ok(reasons.has('bridge-queue-full'), [...reasons].join(','));
      // 2 MiB in all, and the one POST a session with nothing waiting is always given: not 4 x (1 MiB + one).
      assert.ok(accepted * size <= 2 * 1024 * 1024 + 4 * size, `${accepted} accepted in all`);
      // A fifth session with nothing waiting is served whatever the others hold (no session stops another's
      // reading child); once its own child holds something, it too is refused for the total.
      const fifth = sessions[4]!;
      const first = await fifth.post(chunk);
      assert.equal(first.status, 202, await first.text());
      const refused = await fifth.post(chunk);
      assert.equal(refused.status, 503);
      assert.match(await refused.text(), /--max-total-queue-bytes/);
      // A stalled session ends: what it held is given back, and the fifth is taken.
      const ended = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessions[0]!.sessionId, 'mcp-protocol-version': '2025-06-18' } });
      await ended.text();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 202; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        const response = await fifth.post(chunk);
        await response.text();
        status = response.status;
      }
      assert.equal(status, 202, 'a POST taken after a session ended');
    } finally {
      await bridge.stop();
    }
  });

  it("an unread GET stream: the child's flood is held, then the child waits (nothing dropped) until the client reads or goes (F9)", async () => {
    const { bridge, url } = await startServe();
    try {
      const session = await rawSession(url);
      // A GET stream whose reader never reads (paused), so the socket and then the bridge back up.
      const get = request(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session.sessionId, 'mcp-protocol-version': '2025-06-18' } });
      const opened = new Promise<void>((resolve) => get.on('response', (res) => (res.pause(), resolve())));
      get.end();
      await opened;
      const before = rssOf(bridge.child.pid!);
      let answered = false;
      const flood = session.call({ id: 1, method: 'tools/call', params: { name: 'flood', arguments: { count: 4000, size: 64 * 1024 } } }).finally(() => (answered = true));
      await waitFor(() => /not reading its GET stream; (\d+) notifications held, and the server's output is not read/.test(bridge.stderr()), 'the wait said on stderr');
      // The child is made to wait: 250 MiB it would send are not read, so the bridge neither keeps nor drops them.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(answered, false, 'the flood is still waiting on its stdout');
      assert.doesNotMatch(bridge.stderr(), /dropped/);
      const held = Number(/(\d+) notifications held/.exec(bridge.stderr())?.[1]);
      assert.ok(held <= 1000, `held ${held}`);
      // Held: 8 MiB, a megabyte read ahead, what the socket takes. Before the bound the bridge kept the whole
      // flood (growing 90-220 MiB on Bun before it stopped reading the child, with 9 MiB held).
      const growth = rssOf(bridge.child.pid!) - before;
      assert.ok(growth < 64 * 1024 * 1024, `bridge RSS grew ${(growth / 1048576).toFixed(1)} MiB while the child waited`);
      // The client goes away: the child is read again, the rest is dropped and counted, and the call ends.
      get.destroy();
      assert.equal(textOf((await flood).result), 'flooded 4000');
      await waitFor(() => /has no GET stream open; the server's notifications past \d+ held are dropped/.test(bridge.stderr()), 'the drop said on stderr');
    } finally {
      await bridge.stop();
    }
  });

  it('a GET stream read late: the waiting child goes on and every notification arrives, none dropped (F9)', async () => {
    const { bridge, url } = await startServe();
    try {
      const session = await rawSession(url);
      const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session.sessionId, 'mcp-protocol-version': '2025-06-18' } });
      const flood = session.call({ id: 1, method: 'tools/call', params: { name: 'flood', arguments: { count: 600, size: 64 * 1024 } } });
      await waitFor(() => /the server's output is not read until it does/.test(bridge.stderr()), 'the wait said on stderr');
      // Now the client reads: 600 notifications (37 MiB), in order.
      const reader = get.body!.getReader();
      const decoder = new TextDecoder();
      let pending = '';
      const seen: number[] = [];
      await withTimeout(
        (async () => {
          while (seen.length < 600) {
            const { done, value } = await reader.read();
            if (done) break;
            pending += decoder.decode(value, { stream: true });
            const lines = pending.split('\n');
            pending = lines.pop()!;
            for (const line of lines) if (line.startsWith('data:')) seen.push((JSON.parse(line.slice(5)) as { params: { data: { n: number } } }).params.data.n);
          }
        })(),
        // 37 MiB of SSE, read and parsed by the test itself: on Bun on a loaded CI machine this once took over
        // 20 s (passing in 3 of 3 runs on a quieter one). A deadline for a hang, not a speed claim.
        3 * LIMIT,
        'the notifications',
      );
      await reader.cancel();
      assert.deepEqual(
        seen,
        Array.from({ length: 600 }, (_, i) => i + 1),
      );
      assert.equal(textOf((await flood).result), 'flooded 600');
      assert.doesNotMatch(bridge.stderr(), /dropped/);
    } finally {
      await bridge.stop();
    }
  });

  it('a child made to wait for an unread GET stream: its calls still end at --request-timeout', async () => {
    const { bridge, url } = await startServe(['--request-timeout', '1500']);
    try {
      const session = await rawSession(url);
      const get = request(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session.sessionId, 'mcp-protocol-version': '2025-06-18' } });
      await new Promise<void>((resolve) => get.on('response', (res) => (res.pause(), resolve())).end());
      const started = Date.now();
      const flood = await session.call({ id: 1, method: 'tools/call', params: { name: 'flood', arguments: { count: 2000, size: 64 * 1024 } } });
      assert.match(flood.error?.message ?? '', /did not answer within 1500 ms \(--request-timeout\)/);
      assert.ok(Date.now() - started < 10_000);
      assert.match(bridge.stderr(), /the server's output is not read until it does/);
      get.destroy();
    } finally {
      await bridge.stop();
    }
  });

  it('no GET stream open: notifications past the buffer are counted and said, the rest delivered when it opens (F12)', async () => {
    const { bridge, url } = await startServe();
    try {
      const session = await rawSession(url);
      assert.equal(textOf((await session.call({ id: 1, method: 'tools/call', params: { name: 'flood', arguments: { count: 1500, size: 10 } } })).result), 'flooded 1500');
      await waitFor(() => /has no GET stream open/.test(bridge.stderr()), 'the drop said on stderr');
      const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session.sessionId, 'mcp-protocol-version': '2025-06-18' } });
      const reader = get.body!.getReader();
      let text = '';
      const decoder = new TextDecoder();
      const count = () => text.split('\n').filter((line) => line.includes('notifications/message')).length;
      await withTimeout(
        (async () => {
          while (count() < 1000) text += decoder.decode((await reader.read()).value);
        })(),
        LIMIT,
        'the held notifications',
      );
      await reader.cancel();
      assert.equal(count(), 1000);
      await waitFor(() => /500 notifications of the server were dropped/.test(bridge.stderr()), 'the count said on stderr');
    } finally {
      await bridge.stop();
    }
  });
});

describe('--serve: every call ends, every child ends', () => {
  it('a child that never answers: the call gets a JSON-RPC error at --request-timeout, the child a cancel (F6)', async () => {
    const { bridge, url } = await startServe(['--request-timeout', '800']);
    const { client } = await ourClient(url);
    try {
      await assert.rejects(call(client, 'never', {}, 15_000), /did not answer within 800 ms \(--request-timeout\)/);
      await waitFor(() => /request \d+ cancelled/.test(bridge.stderr()), 'the cancel at the child');
      assert.equal(await call(client, 'echo', { text: 'still here' }), 'still here');
    } finally {
      await client.close();
      await bridge.stop();
    }
  });

  it('a child that never answers initialize: a JSON-RPC error at --init-timeout, and the child is ended (F6)', async () => {
    const { bridge, url } = await startServe(['--init-timeout', '800'], ['--no-init']);
    try {
      const transport = new HttpMsgpackClientTransport(url);
      const client = new Client({ name: 'x', version: '1' });
      await assert.rejects(withTimeout(client.connect(transport, { timeout: 15_000 }), LIMIT, 'connect'), /did not answer initialize within 800 ms/);
      await waitFor(() => childrenOf(bridge.child.pid!).length === 0, 'the child ended');
      await client.close();
    } finally {
      await bridge.stop();
    }
  });

  it('a child that crashes while a grandchild holds its stdout: the call ends with an error, the grandchild too (F5)', async () => {
    const { bridge, url } = await startServe();
    const { client } = await ourClient(url);
    try {
      await assert.rejects(call(client, 'grandchild-crash', {}, 15_000), /exited before answering/);
      const grandchild = Number(/grandchild (\d+)/.exec(bridge.stderr())?.[1]);
      assert.ok(grandchild > 0);
      await waitFor(() => !alive(grandchild), 'the grandchild ended');
    } finally {
      await client.close();
      await bridge.stop();
    }
  });

  it('SIGTERM to the bridge ends every child, including ones that ignore their stdin ending, and their children (F7)', async () => {
    const { bridge, url } = await startServe([], ['--ignore-eof', '--ignore-sigterm']);
    const pids: number[] = [];
    const clients: Client[] = [];
    for (let i = 0; i < 3; i++) {
      const { client } = await ourClient(url);
      clients.push(client);
      pids.push(Number(await call(client, 'pid')), Number(await call(client, 'grandchild')));
    }
    bridge.child.kill('SIGTERM');
    await bridge.exited;
    await waitFor(() => pids.every((pid) => !alive(pid)), `no orphans of ${pids.join(', ')}`, 10_000);
    for (const client of clients) await client.close();
  });

  it('a bridge whose parent (npx) is gone ends itself and its children', async () => {
    // The parent starts the bridge as npx does, then dies without passing anything on.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').spawn(process.execPath, [${JSON.stringify(BRIDGE_BIN)}, '--serve', '--', process.execPath, ${JSON.stringify(CHILD)}, '--ignore-eof'], { stdio: ['ignore', 'inherit', 'inherit'] }); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    parent.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    try {
      await waitFor(() => stdout.includes('\n'), 'the URL', LIMIT);
      const bridgePid = childrenOf(parent.pid!)[0]!;
      const { client } = await ourClient(new URL(stdout.split('\n')[0]!.trim()));
      const child = Number(await call(client, 'pid'));
      parent.kill('SIGKILL');
      await waitFor(() => !alive(bridgePid) && !alive(child), 'the bridge and its child gone', 10_000);
      await client.close();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a client that only calls close() leaves no child past --idle-timeout (N2)', async () => {
    const { bridge, url } = await startServe(['--idle-timeout', '1000']);
    try {
      const { client } = await ourClient(url);
      const pid = Number(await call(client, 'pid'));
      await client.close();
      await waitFor(() => !alive(pid), 'the idle child ended', 10_000);
    } finally {
      await bridge.stop();
    }
  });
});

describe('--serve: Origin', () => {
  it('refuses a foreign Origin even with --allowed-host, and takes one given with --allowed-origin (F10)', async () => {
    const { bridge, url } = await startServe(['--allowed-host', '127.0.0.1', '--allowed-origin', 'https://app.example.com']);
    const post = (origin: string) =>
      fetch(url, {
        method: 'POST',
        headers: { ...JSON_HEADERS, origin },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
    try {
      const evil = await post('https://evil.example');
      assert.equal(evil.status, 403);
      await evil.text();
      assert.deepEqual(childrenOf(bridge.child.pid!), []);
      const allowed = await post('https://app.example.com');
      assert.equal(allowed.status, 200);
      await allowed.text();
    } finally {
      await bridge.stop();
    }
  });
});
