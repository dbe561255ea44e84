// Child process: the install check's MCP server (the installed SDK's McpServer) on our stdio transport.
import * as transport from 'mcp-msgpack-transport';
import core from './roundtrip-core.cjs';
import * as sdk from './sdk.mjs';

await core.createServer(sdk, transport).connect(new transport.StdioMsgpackServerTransport(undefined, undefined, { nativeBytes: true }));
