// Native bytes from the client on MCP 2026-07-28 over stdio (SPEC.md 8.1 rules 4-7): a request may carry bin
// once a server/discover result read on msgpack-v1 advertised the extension. On wire 'auto' SDK v2's own
// server/discover goes as a JSON line (it carries the upgrade offer) and its answer, the accepting line, is
// JSON too, so it advertises nothing (rule 6): the transport asks again with its own server/discover as a
// frame after the switch, which the SDK never sees. Both wires must end the same way: an image in a
// tools/call's inputResponses (a sampling result, the multi-round-trip retry) leaves as bin, read here by
// an independent decoder on the child's stdin.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { nativeImage, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { closeQuietly, fixture } from './fixtures/stdio-helpers.js';
import { mediaBytes } from './fixtures/native-tools.js';
import { splitMixed, tappingSpawn } from './fixtures/wire-taps.js';

const MODERN = '2026-07-28';
const CONNECT = { timeout: 15_000 };
const CALL = { timeout: 5_000 };
const IMAGE = mediaBytes(4096, 3);

/** A tools/call retry carrying a sampling result with an image, as SDK v2 sends after input_required. */
function retryWithImage(data: string) {
  return {
    method: 'tools/call' as const,
    params: { name: 'echo', arguments: { text: 'seen' }, inputResponses: { look: { role: 'assistant', model: 'm', content: { type: 'image', data, mimeType: 'image/png' } } } },
  };
}

/** Every message the client wrote to the child that carries our inputResponses, as the wire had it. */
function sentRetries(bytes: Buffer): unknown[] {
  return splitMixed(bytes)
    .filter(({ message }) => message?.method === 'tools/call' && message.params?.inputResponses)
    .map(({ message }) => message.params.inputResponses.look.content.data);
}

describe('2026-07-28 native bytes from an SDK v2 client over stdio (serveStdio on our stdio server)', { timeout: 60_000 }, () => {
  for (const wire of ['msgpack', 'auto'] as const) {
    for (const [how, negotiation] of [
      ['pinned', { mode: { pin: MODERN } }],
      ['auto', { mode: 'auto' }],
    ] as const) {
      it(`wire '${wire}', version ${how}: an image in inputResponses leaves as bin`, async () => {
        const { spawn, toServer, toClient } = tappingSpawn();
        const transport = new StdioMsgpackClientTransport({ command: process.execPath, args: [fixture('v2-stdio-server'), 'serve-ours'], nativeBytes: true, wire, spawn });
        const client = new Client({ name: 'native-discover', version: '1.0.0' }, { versionNegotiation: negotiation });
        const errors: Error[] = [];
        client.onerror = (error) => errors.push(error);
        try {
          await client.connect(transport as never, CONNECT);
          assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
          // Sent at once after connect: on 'auto' the transport's own server/discover may still be unanswered.
          const result = await client.request(retryWithImage(nativeImage(IMAGE, 'image/png').data), CALL);
          assert.deepEqual((result as { content: unknown[] }).content, [{ type: 'text', text: 'seen' }]);
          assert.equal(transport.wire, 'msgpack');
          const sent = sentRetries(toServer.bytes);
          assert.equal(sent.length, 1, 'one retry on the wire');
          assert.ok(sent[0] instanceof Uint8Array, `the image left as bin, not ${typeof sent[0]}`);
          assert.ok(Buffer.from(sent[0]).equals(IMAGE), 'the bytes, intact');
          // The advertisement came in a server/discover result read as a frame: on 'auto', the transport's own.
          const discovers = splitMixed(toServer.bytes).filter(({ message }) => message?.method === 'server/discover');
          const own = discovers.filter(({ message }) => message.id === 'mcp-msgpack/discover');
          assert.equal(own.length, wire === 'auto' ? 1 : 0, 'its own server/discover on auto only');
          if (wire === 'auto') {
            assert.equal(own[0]!.kind, 'frame');
            assert.equal(own[0]!.message.params._meta['io.modelcontextprotocol/protocolVersion'], MODERN, 'with the envelope of the request the upgrade answered');
            const answer = splitMixed(toClient.bytes).find(({ message }) => message?.id === 'mcp-msgpack/discover');
            assert.equal(answer?.kind, 'frame');
            assert.deepEqual(answer!.message.result.capabilities.extensions['io.github.mcp-msgpack/native-bytes'], { version: 1 }, 'the advertisement');
          }
          assert.deepEqual(errors, [], 'the SDK never saw the answer to our own request');
        } finally {
          await closeQuietly(client);
        }
      });
    }
  }
});
