#!/usr/bin/env node
/**
 * A benchmark server child. The harness starts it under the runtime being measured:
 *   entry.js --app tools|tools-v2|media|replay|opening|opening-v2 [--dir DIR] --transport stdio|http --stack stock|ours [--gzip] [--native]
 *            [--encoding cheapest-cpu|smallest] [--defaults] [--compression on|off|gzip6]
 * --native: our transports accept the native-bytes extension (a client must still ask for it).
 * --defaults: our HTTP handler on its default options (replies on streams, not one JSON body each).
 * --compression: our HTTP handler with `compression: true` (on), `false` (off), or with compression off and every JSON reply
 *   gzipped at level 6 around it in this process (gzip6: what a proxy adds); see VariantSpec.compression.
 * Over HTTP it prints "BENCH_READY <port>" on stdout once listening.
 */
import { parseArgs } from 'node:util';
import type { Connectable } from './http-host.js';

// Each variant imports only what it serves: a server's start-up is mostly module loading (SDK v1 and v2
// and zod each take hundreds of milliseconds on a loaded 2-core machine), and quick mode starts dozens.
const { values } = parseArgs({
  options: {
    app: { type: 'string', default: 'tools' },
    dir: { type: 'string' },
    transport: { type: 'string', default: 'stdio' },
    stack: { type: 'string', default: 'ours' },
    gzip: { type: 'boolean', default: false },
    native: { type: 'boolean', default: false },
    encoding: { type: 'string' },
    defaults: { type: 'boolean', default: false },
    compression: { type: 'string' },
  },
});

async function main(): Promise<void> {
  const makeServer = async (): Promise<Connectable> => {
    if (values.app === 'media') return (await import('./optional.js')).createMediaServer(values.dir ?? process.cwd(), values.native ?? false);
    if (values.app === 'replay') return (await import('./replay-app.js')).createReplayServer();
    if (values.app === 'opening') return (await import('./opening-app.js')).createRecordedOpeningServer();
    return (await import('./tool-app.js')).createToolServer();
  };
  if (values.transport === 'stdio') {
    const server = await makeServer();
    const options = { ...(values.native ? { nativeBytes: true } : {}), ...(values.encoding ? { encoding: values.encoding as 'cheapest-cpu' | 'smallest' } : {}) };
    const transport =
      values.stack === 'stock'
        ? new (await import('@modelcontextprotocol/sdk/server/stdio.js')).StdioServerTransport()
        : new (await import('mcp-msgpack-transport')).StdioMsgpackServerTransport(process.stdin, process.stdout, options);
    await server.connect(transport);
    return;
  }
  const { listen, listenStock } = await import('./http-host.js');
  const { listenOurs, oursHttpHandler } = await import('./optional.js');
  // SDK v2's McpServer, built by the factory itself: per session on 2025-11-25, per request on 2026-07-28.
  // The stock side is SDK v2's own createMcpHandler (both revisions at one endpoint, stateless on both).
  // opening-v2: the recorded opening (servers/opening-app.ts) on that server. --defaults and --compression
  // apply to ours as on the other apps (the link scenario's 2026-07-28 rows).
  if (values.app === 'tools-v2' || values.app === 'opening-v2') {
    const factory = values.app === 'tools-v2' ? (await import('./tool-app-v2.js')).createToolServerV2 : (await import('./opening-app-v2.js')).recordedOpeningServersV2();
    const port =
      values.stack === 'stock'
        ? await listen((await import('@modelcontextprotocol/server')).createMcpHandler(factory).fetch)
        : await listenOurs(factory as unknown as () => Connectable, false, values.encoding, values.defaults ?? false, values.compression as 'on' | 'off' | 'gzip6' | undefined);
    process.stdout.write(`BENCH_READY ${port}\n`);
    return;
  }
  // One server instance per session, as the SDK's HTTP examples do; made ahead so a session rarely waits for
  // one. Sessions can open faster than the pool refills (16 clients at once): then one is made on the spot.
  const pool: Connectable[] = [];
  let refilling = false;
  const refill = async () => {
    if (refilling) return;
    refilling = true;
    try {
      while (pool.length < 2) pool.push(await makeServer());
    } finally {
      refilling = false;
    }
  };
  await refill();
  const factory = (): Connectable | Promise<Connectable> => {
    const server = pool.pop();
    void refill();
    return server ?? makeServer();
  };
  // Each stack served as its users serve it; JSON + gzip goes through the generic host, which compresses.
  let port: number;
  if (values.gzip) port = await listen(await oursHttpHandler(factory, values.native ?? false), { gzip: true });
  else if (values.stack === 'stock') port = await listenStock(factory);
  else port = await listenOurs(factory, values.native ?? false, values.encoding, values.defaults ?? false, values.compression as 'on' | 'off' | 'gzip6' | undefined);
  process.stdout.write(`BENCH_READY ${port}\n`);
}

// Exit normally on a signal, so exit hooks (e.g. --cpu-prof) run.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));

main().catch((error: Error) => {
  process.stderr.write(`bench server failed: ${error?.stack ?? error}\n`);
  process.exit(1);
});
