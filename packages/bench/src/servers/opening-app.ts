import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type ServerCapabilities, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { recordedPairs } from '../compression/corpora.js';

/**
 * A recorded server's opening (the link scenario's second row, issue 41): the `initialize` answer (server
 * info, capabilities) and the `tools/list` of a session in corpus/ (the official filesystem server's: 14
 * tools, 13 KB of JSON), served as recorded by the SDK's low-level Server, so both stacks send the same
 * real list. It answers nothing else: the opening is all it is for.
 */
export function createRecordedOpeningServer(corpus = 'fs-session'): Server {
  const { opening, tools } = recordedOpening(corpus);
  const server = new Server(opening.serverInfo, { capabilities: opening.capabilities });
  server.setRequestHandler(ListToolsRequestSchema, () => tools);
  return server;
}

/** The recorded `initialize` answer and `tools/list` of a corpus. */
export function recordedOpening(corpus: string): { opening: { serverInfo: { name: string; version: string }; capabilities: ServerCapabilities }; tools: { tools: Tool[] } } {
  const pairs = recordedPairs(corpus);
  const answer = (method: string) => {
    const result = pairs.find((pair) => pair.request.method === method)?.reply.result;
    if (result === undefined) throw new Error(`corpus ${corpus} has no recorded ${method} answer`);
    return result;
  };
  const opening = answer('initialize') as { serverInfo: { name: string; version: string }; capabilities: ServerCapabilities };
  const tools = answer('tools/list') as { tools: Tool[] };
  return { opening, tools };
}
