// relayBase64Media: a relay of a JSON peer (mcp-msgpack-bridge's reverse mode) sends that peer's base64 media
// as bin to a client that negotiated native bytes, decoded once; everywhere else the text is not touched.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NATIVE_BYTES_EXTENSION } from 'mcp-msgpack-transport';
import { NativeBytesAdapter } from 'mcp-msgpack-transport/wire';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const BYTES = Uint8Array.from({ length: 300 }, (_, i) => (i * 31) % 256);
const BASE64 = Buffer.from(BYTES).toString('base64');
const offer = { extensions: { [NATIVE_BYTES_EXTENSION]: { version: 1 } } };

const result = (id: number, data: string): JSONRPCMessage =>
  ({
    jsonrpc: '2.0',
    id,
    result: {
      content: [
        { type: 'image', data, mimeType: 'image/png' },
        { type: 'text', text: BASE64 },
        { type: 'resource', resource: { uri: 'x:y', blob: data } },
      ],
    },
  }) as JSONRPCMessage;

type Blocks = { content: { data?: unknown; text?: unknown; resource?: { blob?: unknown } }[] };
const blocksOf = (message: unknown) => (message as { result: Blocks }).result.content;

function relay(malformed: string[] = [], negotiate = true): NativeBytesAdapter {
  const adapter = new NativeBytesAdapter('server', { relayBase64Media: { onMalformed: (text) => malformed.push(text) } });
  if (negotiate) {
    adapter.fromWire({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: offer, clientInfo: { name: 't', version: '1' } } }, 'msgpack', false);
    adapter.toWire({ jsonrpc: '2.0', id: 1, result: { capabilities: {} } } as JSONRPCMessage, 'msgpack');
    assert.equal(adapter.negotiated, true);
  }
  return adapter;
}

describe('relayBase64Media', () => {
  it('sends base64 at media fields as bin once negotiated, and needs MessagePack for it', () => {
    const adapter = relay();
    assert.equal(adapter.needsMsgpack(result(2, BASE64)), true);
    const blocks = blocksOf(adapter.toWire(result(2, BASE64), 'msgpack'));
    assert.ok(blocks[0]!.data instanceof Uint8Array && Buffer.from(blocks[0]!.data).equals(Buffer.from(BYTES)));
    assert.ok(blocks[2]!.resource!.blob instanceof Uint8Array && Buffer.from(blocks[2]!.resource!.blob).equals(Buffer.from(BYTES)));
    assert.equal(blocks[1]!.text, BASE64, 'text outside media fields is never touched');
  });

  it('leaves the text alone when the message goes as JSON, or nothing was negotiated', () => {
    const original = result(2, BASE64);
    assert.equal(relay().toWire(original, 'json'), original);
    const plain = relay([], false);
    assert.equal(plain.needsMsgpack(original), false);
    assert.equal(plain.toWire(original, 'msgpack'), original);
  });

  it('never looks at the text without the option', () => {
    const adapter = new NativeBytesAdapter('server');
    adapter.fromWire({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: offer, clientInfo: { name: 't', version: '1' } } }, 'msgpack', false);
    adapter.toWire({ jsonrpc: '2.0', id: 1, result: { capabilities: {} } } as JSONRPCMessage, 'msgpack');
    const original = result(2, BASE64);
    assert.equal(adapter.needsMsgpack(original), false);
    assert.equal(adapter.toWire(original, 'msgpack'), original);
  });

  it('sends text that is not strict base64 unchanged, and reports it', () => {
    for (const bad of ['not base64!', 'QUJD\nREVG', 'QUJDR', 'QUJD====']) {
      const malformed: string[] = [];
      const blocks = blocksOf(relay(malformed).toWire(result(2, bad), 'msgpack'));
      assert.equal(blocks[0]!.data, bad);
      assert.equal(blocks[2]!.resource!.blob, bad);
      assert.deepEqual(malformed, [bad, bad]);
    }
  });

  it('on 2026-07-28, decodes for the answer of a request that offered the extension only', () => {
    const adapter = relay([], false);
    const meta = (offered: boolean) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', ...(offered ? { 'io.modelcontextprotocol/clientCapabilities': offer } : {}) });
    adapter.fromWire({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'x', _meta: meta(true) } }, 'msgpack', false);
    adapter.fromWire({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'x', _meta: meta(false) } }, 'msgpack', false);
    assert.equal(adapter.needsMsgpack(result(5, BASE64)), true);
    assert.ok(blocksOf(adapter.toWire(result(5, BASE64), 'msgpack'))[0]!.data instanceof Uint8Array);
    assert.equal(blocksOf(adapter.toWire(result(6, BASE64), 'msgpack'))[0]!.data, BASE64);
  });
});
