// One round trip against an edge server, from whichever runtime runs it (Node, Deno, a browser): connect, list
// the tools, call the text tool, call the image tool through callTool (base64) and callToolNative (bytes),
// every byte checked. `ours` on MessagePack with native bytes negotiated, or `sdk` (the SDK's own client
// transport, JSON). Throws on any difference; returns a line saying what was checked.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport, NATIVE_BYTES_CAPABILITY, callToolNative } from 'mcp-msgpack-transport';
import { fromBase64, imageBytes, sameBytes } from './image.mjs';

export async function checkClient(url, which) {
  const expected = imageBytes();
  const transport = which === 'ours' ? new HttpMsgpackClientTransport(new URL(url), { nativeBytes: true, wire: 'msgpack' }) : new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: `edge-${which}`, version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = tools
      .map((tool) => tool.name)
      .sort()
      .join(',');
    if (names !== 'echo,image') throw new Error(`tools/list: ${names}`);
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'héllo, edge' } });
    if (echo.content?.[0]?.text !== 'héllo, edge') throw new Error(`echo: ${JSON.stringify(echo).slice(0, 200)}`);
    const image = (await client.callTool({ name: 'image', arguments: {} })).content[0];
    if (image.type !== 'image' || image.mimeType !== 'image/png' || !sameBytes(fromBase64(image.data), expected)) throw new Error('callTool image: the bytes differ');
    const negotiated = client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY] !== undefined;
    if (which === 'ours') {
      if (transport.wire !== 'msgpack') throw new Error(`wire: ${transport.wire}`);
      if (!negotiated) throw new Error('native bytes were not negotiated');
      const native = (await callToolNative(client, { name: 'image', arguments: {} })).content[0];
      if (!sameBytes(native.data, expected)) throw new Error('callToolNative image: the bytes differ');
    } else if (negotiated) throw new Error('native bytes negotiated with the SDK client');
    return `${which === 'ours' ? 'HttpMsgpackClientTransport (msgpack, native bytes)' : "the SDK's StreamableHTTPClientTransport (JSON)"}: tools/list, echo, image (${expected.length} bytes) ok`;
  } finally {
    await client.close();
  }
}
