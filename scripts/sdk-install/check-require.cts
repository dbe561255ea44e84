// Type check of the CommonJS entries' .d.ts (resolved through the package's "require" condition).
import transport = require('mcp-msgpack-transport');
import wireCore = require('mcp-msgpack-transport/wire');

export const wire: transport.WireKind = 'msgpack';
export const error: transport.StreamableHTTPError = new transport.StreamableHTTPError(404, 'gone');
export const makeClient = (url: URL): transport.HttpMsgpackClientTransport => new transport.HttpMsgpackClientTransport(url);
export const frames: wireCore.FrameReader = new wireCore.FrameReader({ maxMessageBytes: wireCore.DEFAULT_MAX_FRAME_BYTES });
