// The package's rooms (folders of src/) and the direction of their imports (CONTRIBUTING.md, "The house"):
// a module imports its own room or a lower one, never a higher one, so the wire never learns of HTTP and a
// runtime adapter is never needed by the core. This test reads the sources and fails on any arrow that
// points up or sideways, and on a room the table does not place.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** Each room's floor: a module may import from rooms on a strictly lower floor (and from its own room). */
const FLOORS: Record<string, number> = {
  mcp: 0, // SDK-compatible types
  runtime: 1, // what differs between Node and Bun, stated once per runtime
  buffers: 2, // lending and pooling of byte buffers
  wire: 3, // msgpack-v1: encoder, guarded decoder, frame and line readers
  jsonrpc: 3, // JSON-RPC message checks and kinds
  codec: 4, // messages to bytes and back, one interface for both wires
  connection: 5, // a byte-stream connection (stdio) and the wire upgrade
  'native-bytes': 6, // the native-bytes extension
  http: 6, // what HTTP client and server share: media types, errors, 2026-07-28 headers
  stdio: 7,
  'http/client': 7,
  'http/server': 7, // web-standard Request in, Response out
  'http/node': 8, // node:http adapter
  'http/bun': 8, // Bun.serve adapter
  redis: 8, // a shared event store for http/server
  agents: 8, // adapters for agent frameworks that take a server object (OpenAI Agents' MCPServer)
  '.': 9, // entry points: index.ts, wire-api.ts, and what composes the runtime adapters
};

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const roomOf = (path: string) => relative(src, dirname(path)) || '.';
const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

describe('layers', () => {
  const files = sources(src);

  it('finds the sources', () => {
    assert.ok(files.length > 50, `only ${files.length} sources under ${src}`);
  });

  it('places every room on a floor', () => {
    const unplaced = [...new Set(files.map(roomOf))].filter((room) => !(room in FLOORS));
    assert.deepEqual(unplaced, [], 'add new rooms to FLOORS (and to CONTRIBUTING.md)');
  });

  it('imports only from the same room or a lower floor', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const room = roomOf(file);
      for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = roomOf(normalize(join(dirname(file), match[1]!)));
        if (target !== room && !(FLOORS[target]! < FLOORS[room]!)) wrong.push(`${relative(src, file)} -> ${match[1]} (${room} ${FLOORS[room]} -> ${target} ${FLOORS[target]})`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});
