// `--scenario codings` (issue 41; opt-in, on its own, in this process): each reply of the recorded sessions
// (corpus/, compression/corpora.ts) and of the synthetic shapes coded on its own, as an HTTP reply is, by each
// coding and level the transport could use, on both wires: bytes, and the coder's own CPU (user + system
// time over repeated encodes, the median of rounds), which is what a server adds to a call's CPU when it
// codes. The HTTP view of the same replies, calls with headers and the whole server's CPU, is the
// compression venue (`--scenario compression`). Also: a candidate shared dictionary on the small replies
// (printed, never used by the transport) and the resident memory an open stream's compression context holds.
import * as zlib from 'node:zlib';
import { CanonicalEncoder } from 'mcp-msgpack-transport/wire';
import { textTable } from '../report/columns.js';
import { RECORDED_CORPORA, recordedPairs, SYNTHETIC_SHAPES } from './corpora.js';

interface Body {
  readonly name: string;
  readonly json: Uint8Array;
  readonly msgpack: Uint8Array;
}

type Coder = (bytes: Uint8Array) => Uint8Array;
interface ZstdZlib {
  zstdCompressSync?: (bytes: Uint8Array, options: object) => Buffer;
  createZstdCompress?: (options: object) => zlib.Gzip;
}
const zstd = zlib as unknown as ZstdZlib;
const zc = zlib.constants as typeof zlib.constants & Record<string, number | undefined>;
const ZSTD_LEVEL_PARAM = zc.ZSTD_c_compressionLevel ?? 100;

function zstdCoder(level: number, extra: Record<number, number> = {}): Coder | undefined {
  if (!zstd.zstdCompressSync) return undefined;
  return (bytes) => zstd.zstdCompressSync!(bytes, { params: { [ZSTD_LEVEL_PARAM]: level, ...extra } });
}
function brotliCoder(quality: number, lgwin?: number): Coder {
  return (bytes) =>
    zlib.brotliCompressSync(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
        ...(lgwin === undefined ? {} : { [zlib.constants.BROTLI_PARAM_LGWIN]: lgwin }),
      },
    });
}
/** zstd's long-distance matching with a 8 MiB window (level's own otherwise): for a body that repeats a text far apart. */
const LONG = zc.ZSTD_c_enableLongDistanceMatching !== undefined && zc.ZSTD_c_windowLog !== undefined ? { [zc.ZSTD_c_enableLongDistanceMatching]: 1, [zc.ZSTD_c_windowLog]: 23 } : undefined;

/**
 * The codings and levels compared (the transport's: runtime/zlib-codings.ts), gzip 6 first: the baseline, what
 * a proxy adds. A coding this runtime lacks (zstd on Node 20) is left out.
 */
function coders(): Array<[string, Coder]> {
  const all: Array<[string, Coder | undefined]> = [
    ['gzip-6', (bytes) => zlib.gzipSync(bytes, { level: 6 })],
    ['gzip-5', (bytes) => zlib.gzipSync(bytes, { level: 5 })],
    ['gzip-1', (bytes) => zlib.gzipSync(bytes, { level: 1 })],
    ['br-4', brotliCoder(4)],
    ['br-5', brotliCoder(5)],
    ['br-5-w24', brotliCoder(5, 24)],
    ['br-6', brotliCoder(6)],
    ['zstd-1', zstdCoder(1)],
    ['zstd-3', zstdCoder(3)],
    ['zstd-3-long', LONG && zstdCoder(3, LONG)],
    ['zstd-4', zstdCoder(4)],
    ['zstd-5', zstdCoder(5)],
    ['zstd-6', zstdCoder(6)],
    ['zstd-9', zstdCoder(9)],
    ['zstd-12', zstdCoder(12)],
  ];
  return all.filter((entry): entry is [string, Coder] => entry[1] !== undefined);
}

/** The transport's middle size tier for one-body replies, in bytes (runtime/zlib-codings.ts, LEVELS_BY_SIZE). */
const MIDDLE_TIER = [8 * 1024, 64 * 1024] as const;

const encoder = new CanonicalEncoder();
const text = new TextEncoder();
function body(name: string, message: unknown): Body {
  return { name, json: text.encode(JSON.stringify(message)), msgpack: Uint8Array.from(encoder.encode(message)) };
}

function recordedBodies(corpus: string): Body[] {
  return recordedPairs(corpus).map(({ request, reply }) => body(`${request.params?.name ?? request.method} ${(JSON.stringify(reply).length / 1024).toFixed(1)} KB`, reply));
}

function syntheticBodies(): Body[] {
  return Object.entries(SYNTHETIC_SHAPES).map(([name, shape], id) => body(name, { jsonrpc: '2.0', id, result: shape() }));
}

/** CPU microseconds per encode: the median of `rounds` rounds of at least `ms` each. */
function cpuPerEncode(coder: Coder, bytes: Uint8Array, rounds: number, ms: number): number {
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    let n = 0;
    const until = performance.now() + ms;
    do {
      coder(bytes);
      n++;
    } while (performance.now() < until);
    const used = process.cpuUsage(start);
    perRound.push((used.user + used.system) / n);
  }
  perRound.sort((a, b) => a - b);
  return perRound[Math.floor(perRound.length / 2)]!;
}

export interface CodingsOptions {
  full: boolean;
  log: (line: string) => void;
}

/** One coder on one set of bodies: bytes and CPU summed over the bodies, each coded on its own. */
interface Sum {
  coder: string;
  bytes: number;
  msgpackBytes: number;
  cpu: number;
}

function measureSet(bodies: Body[], rounds: number, ms: number): Sum[] {
  return coders().map(([name, coder]) => {
    let bytes = 0;
    let msgpackBytes = 0;
    let cpu = 0;
    for (const { json, msgpack } of bodies) {
      bytes += coder(json).byteLength;
      msgpackBytes += coder(msgpack).byteLength;
      cpu += cpuPerEncode(coder, json, rounds, ms);
    }
    return { coder: name, bytes, msgpackBytes, cpu };
  });
}

function sumTable(title: string, bodies: Body[], sums: Sum[]): string {
  const json = bodies.reduce((total, b) => total + b.json.byteLength, 0);
  const gzip = sums[0]!;
  const rows = sums.map((s) => [
    s.coder,
    String(s.bytes),
    `${(s.bytes / json).toFixed(3)}x`,
    `${(s.bytes / gzip.bytes).toFixed(3)}x`,
    `${(s.msgpackBytes / gzip.bytes).toFixed(3)}x`,
    s.cpu.toFixed(0),
    `${(s.cpu / gzip.cpu).toFixed(2)}x`,
  ]);
  return `${title}: ${bodies.length} replies, ${json} bytes of JSON, each coded on its own\n${textTable(['coding', 'JSON coded', '/ JSON', '/ gzip-6', 'MessagePack coded / gzip-6', 'coder CPU µs', '/ gzip-6'], rows)}`;
}

/** Bytes and coder CPU per reply of a recorded session: gzip 6 against the given coding. */
function perReply(bodies: Body[], ours: [string, Coder], rounds: number, ms: number): string {
  const gzip = coders()[0]!;
  const rows = bodies.map(({ name, json }) => {
    const g = gzip[1](json).byteLength;
    const o = ours[1](json).byteLength;
    return [name, String(json.byteLength), String(g), String(o), `${(o / g).toFixed(2)}x`, `${(cpuPerEncode(ours[1], json, rounds, ms) / cpuPerEncode(gzip[1], json, rounds, ms)).toFixed(2)}x`];
  });
  return textTable(['reply', 'JSON', 'gzip-6', ours[0], 'bytes / gzip-6', 'CPU / gzip-6'], rows);
}

/**
 * A candidate shared dictionary for small messages (the item 4), written by hand from MCP's message
 * skeletons and the filesystem tools' vocabulary, nothing taken from the corpus's replies. Measured, not used:
 * the sizes below are what a dictionary would save before its negotiation's cost (RFC 9842's `dcz` adds a
 * 40-byte header to each reply and `Available-Dictionary`, about 50 bytes, to each request).
 */
const CANDIDATE_DICTIONARY = new TextEncoder().encode(
  [
    '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{}},"serverInfo":{"name":"server","version":"1.0.0"},"instructions":""}}',
    '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":""}],"structuredContent":{"content":""},"isError":false}}',
    '{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"","title":"","description":"","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"},"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"outputSchema":{"type":"object"}}],"nextCursor":""}}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"total":2,"message":""}}',
    '{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params","data":{}}}',
    '[FILE] [DIR] size: created: modified: accessed: isDirectory: isFile: permissions: .json .ts .md .js README package.json src test',
  ].join('\n'),
);

function dictionaryLine(bodies: Body[]): string {
  const small = bodies.filter((b) => b.json.byteLength < 2048);
  const sum = (code: (bytes: Uint8Array) => Uint8Array) => small.reduce((total, b) => total + code(b.json).byteLength, 0);
  const plain = small.reduce((total, b) => total + b.json.byteLength, 0);
  const gzip = sum((bytes) => zlib.gzipSync(bytes, { level: 6 }));
  const withDictionary = zstd.zstdCompressSync
    ? sum((bytes) => zstd.zstdCompressSync!(bytes, { dictionary: CANDIDATE_DICTIONARY, params: { [ZSTD_LEVEL_PARAM]: 3 } }))
    : sum((bytes) => zlib.deflateSync(bytes, { level: 6, dictionary: CANDIDATE_DICTIONARY }));
  const label = zstd.zstdCompressSync ? 'zstd-3' : 'deflate-6 (zlib framing)';
  const dcz = withDictionary + small.length * 40;
  return `dictionary (${CANDIDATE_DICTIONARY.byteLength} bytes, hand-written) on the ${small.length} replies under 2 KB (${plain} bytes): gzip-6 ${gzip}, ${label} + dictionary ${withDictionary} (${(withDictionary / gzip).toFixed(2)}x gzip-6); with dcz's 40-byte header each ${dcz} (${(dcz / gzip).toFixed(2)}x), before the requests' Available-Dictionary`;
}

/** Resident memory per open stream context (a coded event stream holds one for its life): 200 contexts, each written and flushed once. */
async function contextMemory(): Promise<string> {
  const makers: Record<string, (() => [zlib.Gzip, number]) | undefined> = {
    'gzip-5': () => [zlib.createGzip({ level: 5 }), zlib.constants.Z_SYNC_FLUSH],
    'br-4': () => [zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }) as unknown as zlib.Gzip, zlib.constants.BROTLI_OPERATION_FLUSH],
    'zstd-3': (zlib as unknown as { createZstdCompress?: (o: object) => zlib.Gzip }).createZstdCompress
      ? () => [
          (zlib as unknown as { createZstdCompress: (o: object) => zlib.Gzip }).createZstdCompress({ params: { [ZSTD_LEVEL_PARAM]: 3 } }),
          (zlib.constants as unknown as { ZSTD_e_flush: number }).ZSTD_e_flush,
        ]
      : undefined,
  };
  const event = new TextEncoder().encode('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}'.repeat(20));
  const figures: string[] = [];
  for (const [name, make] of Object.entries(makers)) {
    if (!make) continue;
    const before = process.memoryUsage().rss;
    const kept: zlib.Gzip[] = [];
    for (let i = 0; i < 200; i++) {
      const [engine, flush] = make();
      engine.on('data', () => {});
      engine.write(event);
      await new Promise<void>((resolve) => engine.flush(flush, () => resolve()));
      kept.push(engine);
    }
    figures.push(`${name} ${((process.memoryUsage().rss - before) / 200 / 1024).toFixed(0)} KiB`);
    for (const engine of kept) engine.destroy();
  }
  return `resident memory per open stream context (200 contexts, each written and flushed once): ${figures.join(', ')}`;
}

/** Runs the table for every recorded corpus and the synthetic shapes; returns the report. */
export async function runCodings(options: CodingsOptions): Promise<string> {
  const rounds = options.full ? 7 : 3;
  const ms = options.full ? 40 : 10;
  const runtimeName = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' ? 'Bun' : `Node ${process.versions.node}`;
  const sections = [`codings on ${runtimeName}: coder CPU the median of ${rounds} rounds of ${ms} ms per reply; each reply coded on its own, as an HTTP reply is`];
  const all = coders();
  const ours = all.find(([name]) => name === 'zstd-3') ?? all.find(([name]) => name === 'br-4')!;
  for (const corpus of Object.keys(RECORDED_CORPORA)) {
    options.log(`codings: ${corpus}`);
    const bodies = recordedBodies(corpus);
    sections.push(sumTable(`RECORDED ${corpus} (corpus/${RECORDED_CORPORA[corpus]})`, bodies, measureSet(bodies, rounds, ms)));
    // The middle size tier on its own (runtime/zlib-codings.ts picks levels by a one-body reply's size): where
    // a level between zstd 3 and 9 would act, apart from the one large reply that dominates the session's sum.
    const middle = bodies.filter((b) => b.msgpack.byteLength >= MIDDLE_TIER[0] && b.msgpack.byteLength < MIDDLE_TIER[1]);
    if (middle.length > 0) sections.push(sumTable(`RECORDED ${corpus}, the replies of 8-64 KiB as MessagePack`, middle, measureSet(middle, rounds, ms)));
    sections.push(`per reply, ${ours[0]} (our server's pick for a client offering zstd, br, gzip) against gzip-6:\n${perReply(bodies, ours, rounds, ms)}`);
    sections.push(dictionaryLine(bodies));
  }
  options.log('codings: synthetic shapes');
  const synthetic = syntheticBodies();
  sections.push(sumTable('SYNTHETIC shapes (payloads.ts: a word list through a PRNG, unlike real traffic)', synthetic, measureSet(synthetic, rounds, ms)));
  options.log('codings: stream contexts');
  sections.push(await contextMemory());
  return `${sections.join('\n\n')}\n`;
}
