// Child process of matrix.mjs: the installed SDK's McpServer on stdio. argv[2] 'ours': on our
// StdioMsgpackServerTransport (native bytes on); 'sdk': on the SDK's own stdio transport (v2: serveStdio).
import * as transport from 'mcp-msgpack-transport';
import core from './roundtrip-core.cjs';
import * as sdk from './sdk.mjs';

const ours = process.argv[2] === 'ours';
const factory = () => core.createServer(sdk, transport, { native: ours });
await sdk.serveStdio(factory, ours ? new transport.StdioMsgpackServerTransport(undefined, undefined, { nativeBytes: true }) : undefined);
