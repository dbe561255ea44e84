// The Buffer stand-in for runtimes without one (runtime/buffer.ts) answers as Node's and Bun's Buffer does,
// for each method the package calls. End to end it runs in a browser and a Worker (npm run test:edge).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WebBuffer } from '../src/runtime/buffer.js';

const TEXTS = ['', 'a', 'hello world', 'héllo', '€ and ✓', '😀 emoji', 'a\ud800b', '\udc00', 'x'.repeat(5000) + '日本語', '\u0000\u007f\u0080\u07ff\u0800\uffff'];

describe('the Buffer stand-in (runtime/buffer.ts)', () => {
  it('byteLength, from(text) and toString match Buffer for UTF-8, base64, hex and latin1', () => {
    for (const text of TEXTS) {
      assert.equal(WebBuffer.byteLength(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text.slice(0, 20)));
      const ours = WebBuffer.from(text);
      const node = Buffer.from(text, 'utf8');
      assert.deepEqual([...ours], [...node]);
      assert.equal(ours.toString('utf8'), node.toString('utf8'));
      assert.equal(ours.toString('base64'), node.toString('base64'));
      assert.equal(ours.toString('hex'), node.toString('hex'));
      assert.equal(ours.latin1Slice(0, ours.length), node.toString('latin1'));
      assert.equal(ours.utf8Slice(1, ours.length), node.toString('utf8', 1));
      assert.deepEqual([...WebBuffer.from(node.toString('base64'), 'base64')], [...node]);
    }
  });

  it('write, copy and writeUInt32BE write what Buffer writes', () => {
    for (const text of TEXTS) {
      const ours = WebBuffer.allocUnsafe(Buffer.byteLength(text) + 7).fill(0);
      const node = Buffer.alloc(ours.length);
      assert.equal(ours.write(text, 3), node.write(text, 3, 'utf8'));
      ours.writeUInt32BE(0xdeadbeef, 1);
      node.writeUInt32BE(0xdeadbeef, 1);
      assert.deepEqual([...ours], [...node]);
      const [intoOurs, intoNode] = [new Uint8Array(ours.length + 2), new Uint8Array(node.length + 2)];
      assert.equal(ours.copy(intoOurs, 2, 1, ours.length - 1), node.copy(intoNode, 2, 1, node.length - 1));
      assert.deepEqual(intoOurs, intoNode);
    }
  });

  it('from(arrayBuffer, offset, length) is a view; from(bytes) a copy; subarray stays a WebBuffer', () => {
    const backing = new Uint8Array([1, 2, 3, 4, 5]);
    const view = WebBuffer.from(backing.buffer, 1, 3);
    backing[1] = 9;
    assert.deepEqual([...view], [9, 3, 4]);
    const copy = WebBuffer.from(backing);
    backing[0] = 7;
    assert.equal(copy[0], 1);
    assert.ok(WebBuffer.isBuffer(view.subarray(1)));
    assert.ok(!WebBuffer.isBuffer(backing));
  });
});
