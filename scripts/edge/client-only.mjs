// The smallest browser client, for its bundle size only: SDK v2's Client on our transport.
import { Client } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';

export async function connect(url) {
  const client = new Client({ name: 'browser', version: '1.0.0' });
  await client.connect(new HttpMsgpackClientTransport(new URL(url)));
  return client;
}
