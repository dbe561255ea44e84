// Decode time of this build's MsgpackDecoder against another build's, interleaved in one process, on both
// decode paths, for messages of the sizes the key budget (SPEC.md 4.1.9) counts or skips:
//   node packages/bench/measure/measure-decode-cost.mjs /path/to/other/packages/transport-msgpack/dist/esm/wire-api.js [rounds=7]
// (build the other side from a commit with: git archive <commit> packages/transport-msgpack tsconfig.json |
//  tar -x -C /tmp/base, link node_modules, and run tsc -p tsconfig.json in its package.)
import { pathToFileURL } from 'node:url';
import * as current from 'mcp-msgpack-transport/wire';

const other = await import(pathToFileURL(process.argv[2]).href);
const rounds = Number(process.argv[3] ?? 7);
const encoder = new current.CanonicalEncoder();

const file = (i) => ({ name: `file_${i}.png`, size: i * 1013, mimeType: 'image/png', modified: '2026-11-24T18:00:00Z', tags: ['a', 'b'] });
const tool = (i) => ({
  name: `tool_${i}`,
  description: 'Reads a file and returns it, with options that change how',
  inputSchema: { type: 'object', properties: { [`path_${i % 50}`]: { type: 'string' }, [`mode_${i % 7}`]: { type: 'string', enum: ['a', 'b'] }, limit: { type: 'integer' } }, required: [`path_${i % 50}`] },
});
const payloads = {
  'small (ping result)': { jsonrpc: '2.0', id: 1, result: {} },
  'tools/call 1 KB': { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: { query: 'x'.repeat(900), limit: 10 } } },
  'object 50 KB (files)': { jsonrpc: '2.0', id: 3, result: { files: Array.from({ length: 500 }, (_, i) => file(i)) } },
  'tools/list 250 KB': { jsonrpc: '2.0', id: 4, result: { tools: Array.from({ length: 1200 }, (_, i) => tool(i)) } },
  'object 1 MB (files)': { jsonrpc: '2.0', id: 5, result: { files: Array.from({ length: 10_000 }, (_, i) => file(i)) } },
};

function timePerDecode(decoder, bytes) {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < 60) {
    decoder.decode(bytes);
    n++;
    t = performance.now();
  }
  return ((t - t0) * 1e6) / n; // ns
}

// The fastest round of each: on a loaded machine the minimum is the least disturbed figure.
const fastest = (xs) => Math.min(...xs);
console.log(
  `${process.release.name === 'node' && typeof Bun === 'undefined' ? `Node ${process.version}` : `Bun ${globalThis.Bun?.version}`}, ${rounds} interleaved rounds, fastest round, ns per decode (this build / other build)`,
);
for (const path of ['guard-then-msgpackr', 'single-pass']) {
  for (const [name, message] of Object.entries(payloads)) {
    const bytes = encoder.encode(message).slice();
    const mine = new current.MsgpackDecoder({ decodePath: path });
    const theirs = new other.MsgpackDecoder({ decodePath: path });
    const a = [];
    const b = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so neither always runs in the other's wake (GC, caches).
      if (r % 2 === 0) {
        a.push(timePerDecode(mine, bytes));
        b.push(timePerDecode(theirs, bytes));
      } else {
        b.push(timePerDecode(theirs, bytes));
        a.push(timePerDecode(mine, bytes));
      }
    }
    const [ma, mb] = [fastest(a), fastest(b)];
    console.log(`${path.padEnd(20)} ${name.padEnd(22)} ${String(bytes.length).padStart(8)} B  ${ma.toFixed(0).padStart(9)} / ${mb.toFixed(0).padStart(9)} ns  = ${(ma / mb).toFixed(2)}x`);
  }
}
