// The core entry is runtime-neutral (src/core.ts): bundled for a browser or a platform with no Node at all,
// from the built package as an application imports it, its module graph holds no `node:` module and no
// undici. esbuild fails a browser or neutral build on an unresolved `node:` import, and the metafile names
// every module that went in. The SDK and zod are the application's own dependencies (optional peers, loaded
// lazily for OAuth), so they stay out of the bundle. Needs `npm run build` (dist/).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Platform } from 'esbuild';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

async function bundle(source: string, platform: Platform, conditions?: string[]): Promise<{ inputs: string[]; bytes: number; text: string }> {
  const result = await build({
    ...(conditions && { conditions }),
    stdin: { contents: source, resolveDir: packageDir, loader: 'js' },
    bundle: true,
    platform,
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    // A neutral platform reads no main fields by default; some dependencies have only "main".
    mainFields: ['module', 'main'],
    external: ['@modelcontextprotocol/*', 'zod'],
  });
  const output = result.outputFiles[0]!;
  return { inputs: Object.keys((result.metafile as Metafile).inputs), bytes: output.contents.byteLength, text: output.text };
}

const notNeutral = (inputs: string[]) => inputs.filter((path) => path.startsWith('node:') || /(^|\/)undici\//.test(path) || /\/dist\/esm\/(stdio|http\/node|http\/bun|runtime\/node|runtime\/bun)/.test(path));

describe('the core entry bundles without node: or undici', () => {
  for (const platform of ['browser', 'neutral'] as const) {
    for (const [what, source] of [
      ['the HTTP client', `export { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';`],
      ['the web handler', `export { WebMcpHttpHandler } from 'mcp-msgpack-transport';`],
      ['the whole root', `export * from 'mcp-msgpack-transport';`],
      ['the wire entry', `export * from 'mcp-msgpack-transport/wire';`],
    ] as const) {
      it(`${what}, --platform=${platform}`, async () => {
        const { inputs, text } = await bundle(source, platform);
        assert.ok(
          inputs.some((path) => path.endsWith('dist/esm/runtime/web.js')),
          `the web runtime was not picked: ${inputs.filter((p) => p.includes('runtime/')).join(', ')}`,
        );
        assert.deepEqual(notNeutral(inputs), []);
        assert.doesNotMatch(text, /["']node:[a-z_/]+["']/, 'a node: specifier is left in the bundle');
      });
    }
  }

  it('the web handler as wrangler bundles a Worker (conditions workerd, worker, browser)', async () => {
    const { inputs } = await bundle(`export { WebMcpHttpHandler, HttpMsgpackClientTransport } from 'mcp-msgpack-transport';`, 'neutral', ['workerd', 'worker', 'browser']);
    assert.ok(
      inputs.some((path) => path.endsWith('dist/esm/core.js')),
      'the root did not resolve to the core',
    );
    assert.deepEqual(notNeutral(inputs), []);
  });

  it('fails where it should: the stdio entry does not bundle for the browser', async () => {
    await assert.rejects(bundle(`export * from 'mcp-msgpack-transport/stdio';`, 'browser'), /node:(child_process|process|stream)/);
  });

  it('on Node the root is the whole API, with the Node runtime and its undici fetch', async () => {
    const { inputs } = await bundle(`export { StdioMsgpackClientTransport, listenNode, HttpMsgpackClientTransport } from 'mcp-msgpack-transport';`, 'node');
    assert.ok(inputs.some((path) => path.endsWith('dist/esm/runtime/node.js')));
    assert.ok(inputs.some((path) => path.endsWith('dist/esm/stdio/client.js')));
  });
});
