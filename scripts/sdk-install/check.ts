// Type check (strict, nothing skipped): our transports fit the installed SDK's Client and McpServer (their
// classes come from sdk-types.ts, one per generation), the native helpers take its Client, and the shipped
// ESM .d.ts resolve with no other SDK installed.
import { callToolNative, HttpMsgpackClientTransport, McpHttpHandler, StdioMsgpackClientTransport, StdioMsgpackServerTransport, type NativeImageContent } from 'mcp-msgpack-transport';
import { CanonicalEncoder, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import type { SdkClient, SdkServer } from './sdk-types.js';

export async function check(client: SdkClient, server: SdkServer): Promise<Uint8Array> {
  await client.connect(new HttpMsgpackClientTransport(new URL('http://127.0.0.1:1/mcp')));
  await client.connect(new StdioMsgpackClientTransport({ command: 'node', nativeBytes: true }));
  await server.connect(new StdioMsgpackServerTransport());
  new McpHttpHandler({ createServer: () => server });
  const result = await callToolNative(client, { name: 'image', arguments: {} }, { timeout: 1000 });
  // The wire subpath's types resolve too, and its codec round-trips the bytes.
  const frame = new CanonicalEncoder().encodeFrame({ data: (result.content[0] as NativeImageContent).data });
  return (new MsgpackDecoder().decode(frame.subarray(4), true).value as { data: Uint8Array }).data;
}
