// Type check of the CommonJS entry's .d.ts (resolved through the package's "require" condition).
import transport = require('mcp-msgpack-transport');

export const wire: transport.WireKind = 'msgpack';
export const error: transport.StreamableHTTPError = new transport.StreamableHTTPError(404, 'gone');
export const makeClient = (url: URL): transport.HttpMsgpackClientTransport => new transport.HttpMsgpackClientTransport(url);
