// The compression venue (issue 41): wire bytes and the server CPU a content coding adds per reply, for
// identity, JSON + gzip level 6 (what a proxy adds), gzip level 5 (what our server gives a client that asks
// for gzip only: the stock clients) and the codings our server picks for a client that offers them (zstd level 3 where
// the runtime has it, Brotli quality 4), on both wires, for each reply of a recorded session with the
// official filesystem server (corpus/filesystem-session.jsonl, record-corpus.ts) and for the benchmark's
// synthetic shapes. Each reply is coded on its own, as an HTTP reply is; CPU is the coder's own, measured in
// this process (user + system time over repeated encodes, the median of rounds), which is what our server
// adds to a call's CPU when it codes (the rest of the call is the same with and without a coding).
//   node packages/bench/dist/esm/compression/venue.js [--rounds 5] [--ms 40]
//   bun packages/bench/dist/esm/compression/venue.js
// It also measures a candidate shared dictionary on the small replies (printed, never used by the transport),
// and the resident memory an open stream's compression context holds.
import { readFileSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { CanonicalEncoder } from 'mcp-msgpack-transport/wire';
import { diffText, logText, reviewContext, shortStringRows, toolList } from '../payloads.js';

interface Body {
  readonly name: string;
  readonly json: Uint8Array;
  readonly msgpack: Uint8Array;
}

type Coder = (bytes: Uint8Array) => Uint8Array;
const zstd = zlib as unknown as { zstdCompressSync?: (bytes: Uint8Array, options: object) => Buffer };
const ZSTD_LEVEL_PARAM = (zlib.constants as unknown as { ZSTD_c_compressionLevel?: number }).ZSTD_c_compressionLevel ?? 100;

/** The codings compared, with the levels the transport uses (runtime/zlib-codings.ts). */
const CODERS: Record<string, Coder | undefined> = {
  'gzip-6': (bytes) => zlib.gzipSync(bytes, { level: 6 }),
  'gzip-5': (bytes) => zlib.gzipSync(bytes, { level: 5 }),
  'br-4': (bytes) => zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }),
  'zstd-3': zstd.zstdCompressSync ? (bytes) => zstd.zstdCompressSync!(bytes, { params: { [ZSTD_LEVEL_PARAM]: 3 } }) : undefined,
};
/** Our server's pick for a client that offers every coding (its first that the runtime has). */
const OURS = CODERS['zstd-3'] ? 'zstd-3' : 'br-4';

function args(): { rounds: number; ms: number; corpus: string } {
  const argv = process.argv.slice(2);
  const value = (name: string, fallback: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1]! : fallback;
  };
  return { rounds: Number(value('--rounds', '5')), ms: Number(value('--ms', '40')), corpus: value('--corpus', 'packages/bench/corpus/filesystem-session.jsonl') };
}

const encoder = new CanonicalEncoder();
const text = new TextEncoder();
function body(name: string, message: unknown): Body {
  return { name, json: text.encode(JSON.stringify(message)), msgpack: Uint8Array.from(encoder.encode(message)) };
}

const result = (id: number, value: Record<string, unknown>) => ({ jsonrpc: '2.0', id, result: value });
function syntheticBodies(): Body[] {
  return [
    body('tools/list 40 tools', result(1, toolList(40))),
    body('object 50 KB', result(2, { content: [{ type: 'text', text: 'review' }], structuredContent: reviewContext(50_000) })),
    body('rows 50 KB', result(3, { content: [{ type: 'text', text: 'rows' }], structuredContent: shortStringRows(50_000) })),
    body('diff 50 KB', result(4, { content: [{ type: 'text', text: diffText(50_000) }] })),
    body('log 50 KB', result(5, { content: [{ type: 'text', text: logText(50_000) }] })),
  ];
}

function corpusBodies(path: string): Body[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const { request, reply } = JSON.parse(line) as { request: { method: string; params?: { name?: string } }; reply: unknown };
      const json = JSON.stringify(reply);
      return body(`${request.params?.name ?? request.method} ${(json.length / 1024).toFixed(1)} KB`, reply);
    });
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

interface Row {
  readonly name: string;
  readonly json: number;
  readonly gzip: number;
  readonly oursJson: number;
  readonly oursMsgpack: number;
  readonly gzipCpu: number;
  readonly oursCpu: number;
  /** gzip level 5, the server's coding for a client that takes only gzip. */
  readonly stock: number;
  readonly stockCpu: number;
}

function measure(bodies: Body[], rounds: number, ms: number): Row[] {
  const gzip = CODERS['gzip-6']!;
  const ours = CODERS[OURS]!;
  return bodies.map(({ name, json, msgpack }) => ({
    name,
    json: json.byteLength,
    gzip: gzip(json).byteLength,
    oursJson: ours(json).byteLength,
    oursMsgpack: ours(msgpack).byteLength,
    gzipCpu: cpuPerEncode(gzip, json, rounds, ms),
    oursCpu: cpuPerEncode(ours, json, rounds, ms),
    stock: CODERS['gzip-5']!(json).byteLength,
    stockCpu: cpuPerEncode(CODERS['gzip-5']!, json, rounds, ms),
  }));
}

function print(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  console.log(`| reply | JSON bytes | JSON + gzip-6 | JSON + ${OURS} | MessagePack + ${OURS} | ${OURS} / gzip-6 bytes | gzip-6 CPU µs | ${OURS} CPU µs | CPU ratio |`);
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const sum = { json: 0, gzip: 0, oursJson: 0, oursMsgpack: 0, gzipCpu: 0, oursCpu: 0, stock: 0, stockCpu: 0 };
  for (const row of rows) {
    for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += row[key];
    console.log(
      `| ${row.name} | ${row.json} | ${row.gzip} | ${row.oursJson} | ${row.oursMsgpack} | ${(row.oursJson / row.gzip).toFixed(2)}x | ${row.gzipCpu.toFixed(0)} | ${row.oursCpu.toFixed(0)} | ${(row.oursCpu / row.gzipCpu).toFixed(2)}x |`,
    );
  }
  console.log(
    `| all (each coded on its own) | ${sum.json} | ${sum.gzip} (${(sum.gzip / sum.json).toFixed(3)}x JSON) | ${sum.oursJson} | ${sum.oursMsgpack} | ${(sum.oursJson / sum.gzip).toFixed(2)}x (MessagePack ${(sum.oursMsgpack / sum.gzip).toFixed(2)}x) | ${sum.gzipCpu.toFixed(0)} | ${sum.oursCpu.toFixed(0)} | ${(sum.oursCpu / sum.gzipCpu).toFixed(2)}x |`,
  );
  console.log(`stock clients (gzip only) get gzip-5: ${sum.stock} bytes (${(sum.stock / sum.gzip).toFixed(3)}x gzip-6) at ${(sum.stockCpu / sum.gzipCpu).toFixed(2)}x its CPU`);
  const small = rows.filter((row) => row.json < 2048);
  if (small.length > 0) {
    const s = small.reduce((acc, row) => ({ json: acc.json + row.json, gzip: acc.gzip + row.gzip, ours: acc.ours + row.oursJson }), { json: 0, gzip: 0, ours: 0 });
    console.log(
      `replies under 2 KB: JSON ${s.json} bytes, gzip-6 ${s.gzip} (${(s.gzip / s.json).toFixed(2)}x), ${OURS} ${s.ours} (${(s.ours / s.json).toFixed(2)}x); our server leaves replies under 1 KiB uncoded`,
    );
  }
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

function dictionaryLine(bodies: Body[]): void {
  const small = bodies.filter((b) => b.json.byteLength < 2048);
  const sum = (code: (bytes: Uint8Array) => Uint8Array) => small.reduce((total, b) => total + code(b.json).byteLength, 0);
  const plain = small.reduce((total, b) => total + b.json.byteLength, 0);
  const gzip = sum(CODERS['gzip-6']!);
  const withDictionary = zstd.zstdCompressSync
    ? sum((bytes) => zstd.zstdCompressSync!(bytes, { dictionary: CANDIDATE_DICTIONARY, params: { [ZSTD_LEVEL_PARAM]: 3 } }))
    : sum((bytes) => zlib.deflateSync(bytes, { level: 6, dictionary: CANDIDATE_DICTIONARY }));
  const label = zstd.zstdCompressSync ? 'zstd-3' : 'deflate-6 (zlib framing)';
  const dcz = withDictionary + small.length * 40;
  console.log(
    `dictionary (${CANDIDATE_DICTIONARY.byteLength} bytes, hand-written) on the ${small.length} replies under 2 KB (${plain} bytes): gzip-6 ${gzip}, ${label} + dictionary ${withDictionary} (${(withDictionary / gzip).toFixed(2)}x gzip-6); with dcz's 40-byte header each ${dcz} (${(dcz / gzip).toFixed(2)}x), before the requests' Available-Dictionary`,
  );
}

/** Resident memory per open stream context (a coded event stream holds one for its life): 200 contexts, each written and flushed once. */
async function contextMemory(): Promise<void> {
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
  console.log(`\nresident memory per open stream context (200 contexts): ${figures.join(', ')}`);
}

const { rounds, ms, corpus } = args();
const runtimeName = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' ? 'Bun' : `Node ${process.versions.node}`;
console.log(`compression venue on ${runtimeName}: ours = ${OURS} (the server's pick for a client offering zstd, br, gzip); CPU the coder's own, median of ${rounds} rounds of ${ms} ms`);
const recorded = corpusBodies(corpus);
print(`Recorded session, official filesystem server (${corpus})`, measure(recorded, rounds, ms));
dictionaryLine(recorded);
await contextMemory();
print("The benchmark's synthetic shapes (payloads.ts: a word list through a PRNG, unlike real traffic)", measure(syntheticBodies(), rounds, ms));
