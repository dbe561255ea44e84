// ToolsListPrefetch (http/client/tools-list-prefetch.ts) on its own, with a post that answers at once: which
// messages start a prefetch, which SDK request it answers (once, fresh, same envelope, no cursor), and what
// drops it. The transport's use of it, end to end: http-tools-prefetch.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage, JSONRPCRequest } from '../src/mcp/types.js';
import { PREFETCH_ID, ToolsListPrefetch } from '../src/http/client/tools-list-prefetch.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
};
const TOOLS = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
const discover = (meta: object = ENVELOPE): JSONRPCMessage => ({ jsonrpc: '2.0', id: 'probe-1', method: 'server/discover', params: { _meta: meta } }) as JSONRPCMessage;
const toolsList = (id: number, params: object = { _meta: structuredClone(ENVELOPE) }): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/list', params }) as JSONRPCMessage;

/** A prefetch whose post answers with `answer` (a result for its id by default), recording what it posted. */
function prefetchWith(answer: (request: JSONRPCRequest) => JSONRPCMessage[] | undefined = (request) => [{ jsonrpc: '2.0', id: request.id, result: structuredClone(TOOLS) } as JSONRPCMessage], freshMs?: number) {
  const posted: { request: JSONRPCRequest; signal: AbortSignal }[] = [];
  const prefetch = new ToolsListPrefetch(true, async (request, signal) => (posted.push({ request, signal }), answer(request)), freshMs);
  const open = (first: JSONRPCMessage = discover()) => {
    const request = prefetch.prefetchFor(first);
    if (request) prefetch.start(request);
    return request;
  };
  return { prefetch, posted, open };
}

describe('ToolsListPrefetch', () => {
  it("starts on SDK v2's 2026-07-28 discover as the first request, with its envelope and an id of its own", () => {
    const { posted, open } = prefetchWith();
    const request = open();
    assert.deepEqual(request, { jsonrpc: '2.0', id: PREFETCH_ID, method: 'tools/list', params: { _meta: ENVELOPE } });
    assert.equal(posted.length, 1);
  });

  it('does not start on an initialize, a 2025 discover, a later request, or when disabled', () => {
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } as JSONRPCMessage;
    assert.equal(prefetchWith().open(initialize), undefined);
    assert.equal(prefetchWith().open(discover({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' })), undefined);
    const { prefetch } = prefetchWith();
    prefetch.prefetchFor(toolsList(0));
    assert.equal(prefetch.prefetchFor(discover()), undefined);
    assert.equal(new ToolsListPrefetch(false, async () => undefined).prefetchFor(discover()), undefined);
  });

  it("answers the SDK's first tools/list with the same envelope, under its id, once", async () => {
    const { prefetch, open } = prefetchWith();
    open();
    assert.deepEqual(await prefetch.answer(toolsList(7), undefined), { jsonrpc: '2.0', id: 7, result: TOOLS });
    assert.equal(prefetch.answer(toolsList(8), undefined), undefined);
  });

  it('leaves to the network a cursor, another envelope, extra headers, a resumption, and other methods', () => {
    const { prefetch, open } = prefetchWith();
    open();
    assert.equal(prefetch.answer(toolsList(1, { cursor: 'next', _meta: ENVELOPE }), undefined), undefined);
    assert.equal(prefetch.answer(toolsList(2, { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2026-12-01' } }), undefined), undefined);
    assert.equal(prefetch.answer(toolsList(3, { _meta: { ...ENVELOPE, progressToken: 1 } }), undefined), undefined);
    assert.equal(prefetch.answer(toolsList(4), { headers: { 'x-extra': '1' } }), undefined);
    assert.equal(prefetch.answer(toolsList(5), { resumptionToken: 'e1' }), undefined);
    assert.equal(prefetch.answer({ jsonrpc: '2.0', id: 6, method: 'prompts/list', params: { _meta: ENVELOPE } } as JSONRPCMessage, undefined), undefined);
    // None of those used it.
    assert.notEqual(prefetch.answer(toolsList(7), undefined), undefined);
  });

  it('a failed prefetch answers undefined, so the SDK asks itself', async () => {
    for (const answer of [
      () => undefined,
      () => [{ jsonrpc: '2.0', id: PREFETCH_ID, error: { code: -32603, message: 'no' } } as JSONRPCMessage],
      () => [{ jsonrpc: '2.0', id: 'other', result: TOOLS } as JSONRPCMessage],
      (request: JSONRPCRequest) =>
        [
          { jsonrpc: '2.0', id: request.id, result: TOOLS },
          { jsonrpc: '2.0', method: 'notifications/message', params: {} },
        ] as JSONRPCMessage[],
    ]) {
      const { prefetch, open } = prefetchWith(answer);
      open();
      assert.equal(await prefetch.answer(toolsList(1), undefined), undefined);
    }
  });

  it('drop() (an initialize, close, list_changed) aborts the post and forgets the result', async () => {
    const { prefetch, posted, open } = prefetchWith();
    open();
    prefetch.prefetchFor({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } as JSONRPCMessage);
    assert.equal(posted[0]!.signal.aborted, true);
    assert.equal(prefetch.answer(toolsList(2), undefined), undefined);
  });

  it('is stale after its freshness window', async () => {
    const { prefetch, posted, open } = prefetchWith(undefined, 1);
    open();
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(posted[0]!.signal.aborted, true);
    assert.equal(prefetch.answer(toolsList(1), undefined), undefined);
  });

  it("a caller's abort while it waits rejects with the caller's reason", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const prefetch = new ToolsListPrefetch(true, async (request) => {
      await held;
      return [{ jsonrpc: '2.0', id: request.id, result: TOOLS } as JSONRPCMessage];
    });
    prefetch.start(prefetch.prefetchFor(discover())!);
    const caller = new AbortController();
    const waiting = prefetch.answer(toolsList(1), { requestSignal: caller.signal })!;
    caller.abort(new Error('cancelled by the caller'));
    await assert.rejects(waiting, /cancelled by the caller/);
    release();
  });
});
