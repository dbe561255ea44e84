import { listenBun, listenNode, McpHttpHandler, type ConnectableServer } from 'mcp-msgpack-transport';
import type { ServeArgs } from '../args.js';
import type { Log } from '../log.js';
import { ChildSession } from './child-session.js';
import { SharedChild } from './shared-child.js';

export interface RunningBridgeServer {
  url: URL;
  close(): Promise<void>;
}

/**
 * The reverse mode: this package's HTTP endpoint (MessagePack for our clients, JSON for the rest, Host and
 * Origin checked as McpHttpHandler does) in front of a stdio JSON server, one child per session or one shared.
 */
/**
 * Text at a media field that is not base64 goes on unchanged (the client gets what the child wrote); said
 * once per bridge, since a child that writes one such field usually writes them all.
 */
function malformedMediaLog(log: Log): () => void {
  let said = false;
  return () => {
    if (said) return;
    said = true;
    log('the stdio server sent media (image/audio data or a resource blob) that is not valid base64; passed on as text, unchanged (said once)');
  };
}

export async function serveStdioServer(args: ServeArgs, log: Log): Promise<RunningBridgeServer> {
  const command = { command: args.command, args: args.args };
  const shared = args.shared ? new SharedChild(command, log) : undefined;
  const handler = new McpHttpHandler({
    createServer: (): ConnectableServer => (shared ? shared.session() : new ChildSession(command, log)),
    // The child speaks JSON, so its media arrive as base64: for a client that negotiated native bytes, the
    // endpoint decodes that text once and sends it as bin; for any other client it passes untouched.
    nativeBytes: { relayBase64Media: { onMalformed: malformedMediaLog(log) } },
    ...(args.allowedHosts.length > 0 ? { allowedHosts: args.allowedHosts } : {}),
  });
  const listen = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' ? listenBun : listenNode;
  const running = await listen(handler, { host: args.host, port: args.port });
  return {
    url: running.url,
    close: async () => {
      await running.close();
      await handler.close();
      await shared?.close();
    },
  };
}
