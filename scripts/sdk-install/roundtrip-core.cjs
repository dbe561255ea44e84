// The round trip, written once and given the modules by its caller (roundtrip.mjs imports them,
// roundtrip.cjs requires them): over stdio (a child running server.mjs) and over HTTP (our handler on
// 127.0.0.1), an MCP Client of the installed SDK lists the tools, calls the text tool, and gets the image
// tool's bytes intact through callToolNative, with native bytes negotiated on MessagePack.
const assert = require('node:assert/strict');
const { join } = require('node:path');

/** The image tool's bytes: deterministic, so the client can check every one. */
function imageBytes() {
  const bytes = new Uint8Array(64 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
  return bytes;
}

/** `native`: the image goes out through nativeImage() (our server transports); else as base64, for the SDK's own. */
function createServer(sdk, transport, { native = true } = {}) {
  const server = new sdk.McpServer({ name: `install-check-${sdk.generation}`, version: '1.0.0' });
  server.registerTool('echo', { inputSchema: sdk.textInput }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  const image = () => (native ? transport.nativeImage(imageBytes(), 'image/png') : { type: 'image', data: Buffer.from(imageBytes()).toString('base64'), mimeType: 'image/png' });
  server.registerTool('image', {}, async () => ({ content: [image()] }));
  return server;
}

async function exercise(sdk, transport, clientTransport, where) {
  const client = new sdk.Client({ name: 'install-check', version: '1.0.0' });
  await client.connect(clientTransport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['echo', 'image'], where);
    const echo = await client.callTool({ name: 'echo', arguments: { text: where } });
    assert.deepEqual(echo.content, [{ type: 'text', text: where }]);
    const result = await transport.callToolNative(client, { name: 'image', arguments: {} });
    const data = result.content[0].data;
    assert.ok(data instanceof Uint8Array && Buffer.from(data).equals(imageBytes()), `${where}: image bytes`);
    assert.ok(client.getServerCapabilities().experimental?.[transport.NATIVE_BYTES_CAPABILITY], `${where}: native bytes negotiated`);
    assert.equal(clientTransport.wire, 'msgpack', `${where}: wire`);
  } finally {
    await client.close();
  }
}

async function run(sdk, transport, how) {
  const stdio = new transport.StdioMsgpackClientTransport({ command: process.execPath, args: [join(__dirname, 'server.mjs')], nativeBytes: true, stderr: 'inherit' });
  await exercise(sdk, transport, stdio, `${how} stdio`);

  const handler = new transport.McpHttpHandler({ createServer: () => createServer(sdk, transport), nativeBytes: true });
  const running = await transport.listenNode(handler);
  try {
    await exercise(sdk, transport, new transport.HttpMsgpackClientTransport(running.url, { nativeBytes: true }), `${how} HTTP`);
  } finally {
    await running.close();
  }
  console.log(`ok: SDK ${sdk.generation}, ${how}, ${typeof Bun === 'undefined' ? 'Node' : 'Bun'}: stdio and HTTP round trips`);
}

module.exports = { run, createServer, imageBytes };
