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
export async function serveStdioServer(args: ServeArgs, log: Log): Promise<RunningBridgeServer> {
  const command = { command: args.command, args: args.args };
  const shared = args.shared ? new SharedChild(command, log) : undefined;
  const handler = new McpHttpHandler({
    createServer: (): ConnectableServer => (shared ? shared.session() : new ChildSession(command, log)),
    // Native bytes only come from servers of ours, never from a JSON child: nothing to offer.
    nativeBytes: false,
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
