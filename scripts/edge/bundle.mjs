// Bundles an edge entry with esbuild as a user's build would, and fails if anything Node-only went in.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';

const TARGETS = {
  // What wrangler sets for a Worker: workerd's conditions, nothing of Node's unless nodejs_compat provides it.
  worker: { platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'] },
  browser: { platform: 'browser' },
};

/** The bundle's text and sizes (minified, gzipped), and this package's share of it (with msgpackr). */
export async function bundle(entry, target) {
  const result = await build({ entryPoints: [entry], bundle: true, format: 'esm', minify: true, write: false, metafile: true, logLevel: 'silent', ...TARGETS[target] });
  const inputs = Object.keys(result.metafile.inputs);
  const nodeOnly = inputs.filter((path) => path.startsWith('node:') || /\/undici\//.test(path));
  if (nodeOnly.length > 0) throw new Error(`the ${target} bundle of ${entry} holds Node-only modules: ${nodeOnly.join(', ')}`);
  if (!inputs.some((path) => path.includes('mcp-msgpack-transport/dist/esm/runtime/web.js'))) throw new Error(`the ${target} bundle of ${entry} did not pick the web runtime`);
  const text = result.outputFiles[0].text;
  let ours = 0;
  for (const [path, { bytesInOutput }] of Object.entries(result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].inputs)) {
    if (/node_modules\/(mcp-msgpack-transport|msgpackr)\//.test(path)) ours += bytesInOutput;
  }
  return { text, bytes: Buffer.byteLength(text), gzipBytes: gzipSync(text).length, oursBytes: ours };
}

export const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
