// Cloudflare Workers: the Worker (worker.mjs) bundled as wrangler would, run in workerd by miniflare, with
// and without nodejs_compat, and called from Node by our client (MessagePack, native bytes) and by the SDK's
// own (JSON). Prints the bundle size and one line per check; throws on any failure. workerd may log a
// "Broken pipe" as it is disposed: a keep-alive written to a GET stream the closing client already left.
import { Miniflare } from 'miniflare';
import { bundle, kib } from './bundle.mjs';
import { checkClient } from './check-client.mjs';

const worker = await bundle('worker.mjs', 'worker');
console.log(`worker bundle: ${kib(worker.bytes)} minified, ${kib(worker.gzipBytes)} gzipped (mcp-msgpack-transport and msgpackr: ${kib(worker.oursBytes)} of it)`);
for (const flags of [[], ['nodejs_compat']]) {
  const mf = new Miniflare({ modules: true, script: worker.text, compatibilityDate: '2025-09-01', compatibilityFlags: flags, host: '127.0.0.1', port: 0, cf: false });
  try {
    const url = new URL('/mcp', await mf.ready).href;
    for (const which of ['ours', 'sdk']) console.log(`workerd${flags.length ? ' (nodejs_compat)' : ''}: ${await checkClient(url, which)}`);
  } finally {
    await mf.dispose();
  }
}
