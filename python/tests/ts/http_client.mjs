// A TS client against the URL in argv[2], printing one JSON line for the Python test to check.
// argv[3] 'msgpack': SDK v1 Client on our HttpMsgpackClientTransport with native bytes, image via callToolNative;
// 'sdk': the same Client on the SDK's own StreamableHTTPClientTransport (JSON), image via callTool;
// 'modern': an SDK v2 Client pinned to 2026-07-28 on our transport with native bytes, image via callToolNative.
// argv[4] 'coded': also echoes a 2.4 KB text (a request body our client codes once the server takes a coding), and
// the report lists the content codings of the replies and of the request bodies (SPEC 10).
import { createHash } from 'node:crypto';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport, callToolNative } from 'mcp-msgpack-transport';

const url = new URL(process.argv[2]);
const mode = process.argv[3];
const ours = mode !== 'sdk';
const coded = process.argv[4] === 'coded';
const contentTypes = new Set();
const replyCodings = new Set();
const requestCodings = new Set();
const recordingFetch = async (input, init) => {
  const response = await fetch(input, init);
  contentTypes.add(response.headers.get('content-type'));
  replyCodings.add(response.headers.get('content-encoding'));
  requestCodings.add(new Headers(init?.headers).get('content-encoding'));
  return response;
};
const transport = ours ? new HttpMsgpackClientTransport(url, { nativeBytes: true, fetch: recordingFetch }) : new StreamableHTTPClientTransport(url, { fetch: recordingFetch });
const client = mode === 'modern' ? new ClientV2({ name: 'ts-http-client', version: '1.0.0' }, { versionNegotiation: { mode: '2026-07-28' } }) : new Client({ name: 'ts-http-client', version: '1.0.0' });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((tool) => tool.name);
const echoed = (await client.callTool({ name: 'echo', arguments: { text: 'héllo' } })).content[0].text;
const bigEcho = coded ? (await client.callTool({ name: 'echo', arguments: { text: 'héllo '.repeat(400) } })).content[0].text : null;
const image = ours
  ? (await callToolNative(client, { name: 'read_image', arguments: {} })).content[0].data
  : Buffer.from((await client.callTool({ name: 'read_image', arguments: {} })).content[0].data, 'base64');
console.log(
  JSON.stringify({
    tools,
    echoed,
    wire: transport.wire ?? null,
    // SDK v1 keeps `experimental` (it drops `extensions`): the server confirms native bytes under both keys.
    native: Boolean(client.getServerCapabilities()?.experimental?.['mcp-msgpack/native-bytes']),
    protocolVersion: client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null,
    contentTypes: [...contentTypes],
    replyCodings: [...replyCodings],
    requestCodings: [...requestCodings],
    bigEchoed: bigEcho === null ? null : bigEcho === 'héllo '.repeat(400),
    length: image.length,
    sha256: createHash('sha256').update(image).digest('hex'),
  }),
);
await client.close();
