import { Server } from '@modelcontextprotocol/server';
import { recordedOpening } from './opening-app.js';

/**
 * The same recorded opening on SDK v2's low-level Server, for the 2026-07-28 rows: a factory of servers
 * whose server/discover answers with the recorded server info and capabilities and whose tools/list with
 * the recorded 13 KB list (read once). SDK v2's HTTP entry builds a server per request on that revision.
 */
export function recordedOpeningServersV2(corpus = 'fs-session'): () => Server {
  const { opening, tools } = recordedOpening(corpus);
  return () => {
    const server = new Server(opening.serverInfo, { capabilities: opening.capabilities as never });
    server.setRequestHandler('tools/list', () => tools as never);
    return server;
  };
}
