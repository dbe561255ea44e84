import { isRecord } from '../../../jsonrpc/is-record.js';
import { isNotification, isRequest } from '../../../jsonrpc/kinds.js';
import { metaOf } from '../../../jsonrpc/envelope.js';
import type { JSONRPCMessage, MessageExtraInfo } from '../../../mcp/types.js';
import { paramHeaderDeclarations, paramHeaderRefusal, type ParamHeaderDeclaration } from './param-headers.js';
import type { Refusal } from '../exchange/responses.js';

/** Pages of tools/list read at most per listing (a server that pages forever does not hold a call forever). */
const MAX_PAGES = 64;

/** Ids of listings in flight, every transport's: their replies are the transport's own, never a client's. */
const pendingListings = new Set<string>();
let listingCount = 0;

/** True for the reply to an in-process tools/list of this module (the 2026-07-28 status watch skips it). */
export function isOwnListingReply(message: JSONRPCMessage): boolean {
  return 'id' in message && typeof message.id === 'string' && pendingListings.has(message.id) && !('method' in message);
}

type Dispatch = (message: JSONRPCMessage, extra: MessageExtraInfo) => void;

/**
 * The `x-mcp-header` declarations of the tools a connected server serves, for checking a 2026-07-28
 * `tools/call`'s `Mcp-Param-*` headers before the call reaches the tool. They are read from the server
 * itself, in process: a `tools/list` is handed to the server as a client's would be (with the calling
 * request's `_meta` and auth, so it lists what that caller may call) and its reply is taken here instead
 * of going out. That works for any server (McpServer or low-level Server, SDK v1 or v2) and costs no round
 * trip. The listing is kept for the next calls on the same server instance (a reused 2026-07-28 server
 * answers many), forgotten when the server says its tools changed (`notifications/tools/list_changed`) or
 * when the caller's credentials differ from the ones it was made with.
 */
export class ToolHeaderCatalog {
  private cached: { token: string | undefined; tools: Promise<Map<string, ParamHeaderDeclaration[]>> } | undefined;
  private readonly waiting = new Map<string, (reply: JSONRPCMessage) => void>();

  constructor(private readonly dispatch: () => Dispatch | undefined) {}

  /** The refusal for a 2026-07-28 tools/call whose `Mcp-Param-*` headers disagree with its arguments. */
  async refusal(message: JSONRPCMessage, headers: { get(name: string): string | null }, extra: MessageExtraInfo): Promise<Refusal | undefined> {
    if (!isRequest(message) || message.method !== 'tools/call' || !isRecord(message.params)) return undefined;
    const { name, arguments: args } = message.params;
    if (typeof name !== 'string') return undefined;
    const token = extra.authInfo?.token;
    if (this.cached === undefined || this.cached.token !== token) this.cached = { token, tools: this.list(metaOf(message.params), extra) };
    const declarations = (await this.cached.tools).get(name);
    return declarations && declarations.length > 0 ? paramHeaderRefusal(declarations, args, headers) : undefined;
  }

  /**
   * Looks at what the server sends: true when it is the reply to one of this catalog's listings (kept
   * here, not sent to any client). A tools/list_changed notification forgets the listing.
   */
  keeps(message: JSONRPCMessage): boolean {
    if (isNotification(message) && message.method === 'notifications/tools/list_changed') this.cached = undefined;
    if (!('id' in message) || typeof message.id !== 'string' || 'method' in message) return false;
    const resolve = this.waiting.get(message.id);
    if (!resolve) return false;
    this.waiting.delete(message.id);
    pendingListings.delete(message.id);
    resolve(message);
    return true;
  }

  /** The transport closed: listings still waiting get an empty reply (their call is answered as gone). */
  close(): void {
    for (const [id, resolve] of this.waiting) {
      pendingListings.delete(id);
      resolve({ jsonrpc: '2.0', id, result: {} } as JSONRPCMessage);
    }
    this.waiting.clear();
  }

  /** Every page of the server's tools/list, as declarations by tool name; empty when the server lists none. */
  private async list(meta: Record<string, unknown> | undefined, extra: MessageExtraInfo): Promise<Map<string, ParamHeaderDeclaration[]>> {
    const tools = new Map<string, ParamHeaderDeclaration[]>();
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await this.ask({ ...(meta && { _meta: withoutProgressToken(meta) }), ...(typeof cursor === 'string' && { cursor }) }, extra);
      const result = 'result' in reply && isRecord(reply.result) ? reply.result : undefined;
      if (!result || !Array.isArray(result.tools)) break;
      for (const tool of result.tools) {
        if (isRecord(tool) && typeof tool.name === 'string') tools.set(tool.name, paramHeaderDeclarations(tool.inputSchema));
      }
      cursor = result.nextCursor;
      if (typeof cursor !== 'string') break;
    }
    return tools;
  }

  private ask(params: Record<string, unknown>, extra: MessageExtraInfo): Promise<JSONRPCMessage> {
    const dispatch = this.dispatch();
    // Not connected: nothing to list, so nothing to check (the call itself will find no server either).
    if (!dispatch) return Promise.resolve({ jsonrpc: '2.0', id: 0, result: {} } as JSONRPCMessage);
    const id = `mcp-msgpack:tools/list:${++listingCount}:${crypto.randomUUID()}`;
    pendingListings.add(id);
    return new Promise<JSONRPCMessage>((resolve) => {
      this.waiting.set(id, resolve);
      dispatch({ jsonrpc: '2.0', id, method: 'tools/list', params } as JSONRPCMessage, { ...extra });
    });
  }
}

/** The caller's `_meta` for the listing, minus its progress token (a listing reports no progress to anyone). */
function withoutProgressToken(meta: Record<string, unknown>): Record<string, unknown> {
  const { progressToken: _progressToken, ...rest } = meta;
  return rest;
}
