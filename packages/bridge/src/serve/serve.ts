import { listenBun, listenNode, type ConnectableServer } from 'mcp-msgpack-transport';
import { TOKENS_ENV, type ServeArgs } from '../args.js';
import type { Log } from '../log.js';
import { ChildProcesses } from './child-processes.js';
import { ChildSession } from './child-session.js';
import { GuardedHandler } from './guarded-handler.js';
import { QueueBudget, SessionRegistry } from './served-session.js';
import type { ServeContext } from './serve-context.js';
import { SharedChild } from './shared-child.js';
import { BearerTokens } from './tokens.js';

export interface RunningBridgeServer {
  url: URL;
  /** Stops listening, ends every session, and every child's process group. */
  close(): Promise<void>;
  /** SIGKILL to every child's process group, at once (for the bridge's exit). */
  killChildrenNow(): void;
}

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

/**
 * The reverse mode: this package's HTTP endpoint (MessagePack for our clients, JSON for the rest, Host
 * checked as McpHttpHandler does) behind the bridge's guards (guarded-handler.ts: Origin, bearer tokens,
 * sessions bound to their token, queues, the child cap), in front of a stdio JSON server, one child per
 * session or one shared.
 */
export async function serveStdioServer(args: ServeArgs, log: Log): Promise<RunningBridgeServer> {
  const context: ServeContext = {
    command: { command: args.command, args: args.args, hiddenEnv: [TOKENS_ENV, ...args.tokens.map((token) => token.principal)] },
    log,
    children: new ChildProcesses(args.maxSessions, log),
    sessions: new SessionRegistry(),
    requestTimeoutMs: args.requestTimeoutMs,
    initTimeoutMs: args.initTimeoutMs,
    maxHeldNotifications: args.maxHeldNotifications,
  };
  const shared = args.shared ? new SharedChild(context) : undefined;
  const handler = new GuardedHandler(
    {
      createServer: (): ConnectableServer => (shared ? shared.session() : new ChildSession(context)),
      // The child speaks JSON, so its media arrive as base64: for a client that negotiated native bytes, the
      // endpoint decodes that text once and sends it as bin; for any other client it passes untouched.
      nativeBytes: { relayBase64Media: { onMalformed: malformedMediaLog(log) } },
      ...(args.allowedHosts.length > 0 ? { allowedHosts: args.allowedHosts } : {}),
      maxSessions: args.maxSessions,
      sessionIdleTimeoutMs: args.idleTimeoutMs,
      // The client's notifications/initialized follows the child's answer to initialize, which may take
      // up to --init-timeout (npx fetching the server): the handler waits that long and a bit more.
      sessionInitTimeoutMs: args.initTimeoutMs + 10_000,
    },
    {
      tokens: new BearerTokens(args.tokens),
      sessions: context.sessions,
      allowedOrigins: args.allowedOrigins,
      maxQueueBytes: args.maxQueueBytes,
      queued: new QueueBudget(args.maxTotalQueueBytes),
      children: shared ? undefined : context.children,
    },
  );
  const listen = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' ? listenBun : listenNode;
  const running = await listen(handler, { host: args.host, port: args.port });
  return {
    url: running.url,
    close: async () => {
      // The children first (their groups get SIGTERM together, then SIGKILL): a session's own close waits
      // up to 4 s per child that ignores its stdin's end.
      await context.children.endAll();
      await running.close();
      await handler.close();
      await shared?.close();
    },
    killChildrenNow: () => context.children.killAllNow(),
  };
}
