// A Cloudflare Worker serving the MCP server through the package's web handler. The handler is made on the
// first request: Workers allow no timers or random values in a module's global scope.
import { WebMcpHttpHandler } from 'mcp-msgpack-transport';
import { createServer } from './mcp-server.mjs';

let handler;
export default {
  fetch(request) {
    handler ??= new WebMcpHttpHandler({ createServer, nativeBytes: true });
    return handler.handle(request);
  },
};
