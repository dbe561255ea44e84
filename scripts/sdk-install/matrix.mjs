// The done-when matrix of the installed SDK generation alone: on stdio and on HTTP, every pairing of
// {the SDK's own transport, ours} x {client, server}, on every revision the generation's Client can
// negotiate (v2: 2025-11-25, 2026-07-28 pinned, 2026-07-28 auto; v1: 2025-11-25). Each cell lists the tools,
// calls the text tool, and calls the image tool through callTool (base64) and callToolNative (bytes), the
// bytes checked one by one. Native bytes must be used exactly when both ends are ours (MessagePack): the
// image's raw 64 KiB appear in what the server sent only as a MessagePack bin, never in JSON or base64.
// Every request runs with a short timeout, so a cell that hangs fails instead of waiting the SDK's 60 s.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import * as transport from 'mcp-msgpack-transport';
import core from './roundtrip-core.cjs';
import * as sdk from './sdk.mjs';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const runtime = typeof Bun === 'undefined' ? 'Node' : 'Bun';
const TIMEOUT = { timeout: 10_000 };
const IMAGE = Buffer.from(core.imageBytes());
const sides = ['ours', 'sdk'];

/** Bytes the server sent, as our client saw them (stdio: the child's stdout; HTTP: every response body). */
class Tap {
  chunks = [];
  add(chunk) {
    this.chunks.push(Buffer.from(chunk));
  }
  /** Whether the image went out as raw bytes (a MessagePack bin), not as base64. */
  sawRawImage() {
    return Buffer.concat(this.chunks).includes(IMAGE);
  }
}

function stdioClient(side, serverSide, tap) {
  const params = { command: process.execPath, args: [join(here, 'matrix-server.mjs'), serverSide], stderr: 'inherit' };
  if (side === 'sdk') return new sdk.StdioClientTransport(params);
  const tapped = (command, args, options) => {
    const child = spawn(command, args, options);
    child.stdout.on('data', (chunk) => tap.add(chunk));
    return child;
  };
  return new transport.StdioMsgpackClientTransport({ ...params, nativeBytes: true, spawn: tapped });
}

function httpClient(side, url, tap) {
  if (side === 'sdk') return new sdk.StreamableHTTPClientTransport(url);
  const tapped = async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const [mine, theirs] = response.body.tee();
    void (async () => {
      for await (const chunk of theirs) tap.add(chunk);
    })().catch(() => {});
    return new Response(mine, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return new transport.HttpMsgpackClientTransport(url, { nativeBytes: true, fetch: tapped });
}

/** Writes a web Response to node's res, streaming its body as it comes (SSE and frame streams included). */
async function writeResponse(res, response) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/** A fetch-style handler on node:http at 127.0.0.1 (how a user hosts v2's createMcpHandler on Node). */
async function hostFetch(handle) {
  const http = createHttpServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
      await writeResponse(res, await handle(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body })));
    } catch {
      res.destroy();
    }
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${http.address().port}/mcp`),
    close: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** The two HTTP servers: ours (McpHttpHandler, native bytes on) and the SDK's own. */
async function startHttpServers() {
  const ours = await transport.listenNode(new transport.McpHttpHandler({ createServer: () => core.createServer(sdk, transport), nativeBytes: true }));
  const handler = sdk.sdkHttpHandler(() => core.createServer(sdk, transport, { native: false }));
  const theirs = await hostFetch((request) => handler.fetch(request));
  return {
    url: { ours: ours.url, sdk: theirs.url },
    close: async () => {
      await ours.close();
      await handler.close();
      await theirs.close();
    },
  };
}

async function cell(where, clientTransport, tap, negotiation, revision, native) {
  if (process.env.MATRIX_VERBOSE) console.log(`cell: ${where}`);
  const client = sdk.newClient(negotiation);
  await client.connect(clientTransport, TIMEOUT);
  try {
    assert.equal(sdk.negotiatedVersion(client), revision, `${where}: revision`);
    const { tools } = await client.listTools(undefined, TIMEOUT);
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['echo', 'image'], where);
    const echo = await sdk.callTool(client, { name: 'echo', arguments: { text: where } }, TIMEOUT);
    assert.deepEqual(echo.content, [{ type: 'text', text: where }], where);
    const image = await sdk.callTool(client, { name: 'image', arguments: {} }, TIMEOUT);
    assert.ok(Buffer.from(image.content[0].data, 'base64').equals(IMAGE), `${where}: callTool image bytes`);
    const result = await transport.callToolNative(client, { name: 'image', arguments: {} }, TIMEOUT);
    const data = result.content[0].data;
    assert.ok(data instanceof Uint8Array && Buffer.from(data).equals(IMAGE), `${where}: callToolNative image bytes`);
    if (tap) {
      assert.equal(clientTransport.wire, native ? 'msgpack' : 'json', `${where}: wire`);
      assert.equal(tap.sawRawImage(), native, `${where}: native bytes ${native ? '' : 'not '}used`);
    }
  } finally {
    await client.close();
  }
}

const started = Date.now();
const http = await startHttpServers();
let cells = 0;
try {
  for (const [label, negotiation, revision] of sdk.negotiations) {
    for (const clientSide of sides) {
      for (const serverSide of sides) {
        const native = clientSide === 'ours' && serverSide === 'ours';
        const pair = `${clientSide} client -> ${serverSide} server`;
        let tap = clientSide === 'ours' ? new Tap() : undefined;
        await cell(`stdio, ${label}, ${pair}`, stdioClient(clientSide, serverSide, tap), tap, negotiation, revision, native);
        tap = clientSide === 'ours' ? new Tap() : undefined;
        await cell(`HTTP, ${label}, ${pair}`, httpClient(clientSide, http.url[serverSide], tap), tap, negotiation, revision, native);
        cells += 2;
      }
    }
  }
} finally {
  await http.close();
}
console.log(`ok: SDK ${sdk.generation} alone, ${runtime}: the matrix, ${cells} cells (stdio and HTTP x revisions x {ours, the SDK's} client x server) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
