import { isRecord } from '../../../jsonrpc/is-record.js';
import type { JSONRPCMessage, RequestId } from '../../../mcp/types.js';
import type { EventFormat } from '../exchange/event-format.js';
import { EventStream } from '../exchange/event-stream.js';
import { INTERNAL_ERROR, INVALID_PARAMS } from '../../../jsonrpc/error-codes.js';

const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';
/** SDK v2's createMcpHandler default. */
const DEFAULT_MAX_SUBSCRIPTIONS = 1024;

/** What a `subscriptions/listen` request asks to hear (MCP 2026-07-28's SubscriptionFilter). */
interface Filter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

type ServerEvent = { method: string; uri?: string };

/**
 * Tells every open `subscriptions/listen` stream that asked for it that something changed. On the
 * stateless revision no server instance outlives a request, so the application says so here (as with SDK
 * v2's `createMcpHandler(...).notify`).
 */
export interface ListenNotifier {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  resourceUpdated(uri: string): void;
}

/** The served server's advertised capabilities and identity, for the honored filter and the closing result. */
export interface ListenContext {
  capabilities: Record<string, unknown> | undefined;
  serverInfo: unknown;
}

interface Subscription {
  id: RequestId;
  filter: Filter;
  stream: EventStream;
  serverInfo: unknown;
}

/**
 * The open `subscriptions/listen` streams of one endpoint (MCP 2026-07-28), in either encoding: each is a
 * reply stream that starts with `notifications/subscriptions/acknowledged` (the honored part of the
 * filter: what the server's capabilities allow) and then carries the change notifications it asked for,
 * each stamped with the subscription id (the request's id) in `_meta`. A filter that honors nothing gets
 * its closing result at once; closing the endpoint ends every stream with that result.
 */
export class ListenSubscriptions {
  private readonly open = new Set<Subscription>();
  readonly notify: ListenNotifier = {
    toolsChanged: () => this.publish({ method: 'notifications/tools/list_changed' }),
    promptsChanged: () => this.publish({ method: 'notifications/prompts/list_changed' }),
    resourcesChanged: () => this.publish({ method: 'notifications/resources/list_changed' }),
    resourceUpdated: (uri) => this.publish({ method: 'notifications/resources/updated', uri }),
  };

  constructor(private readonly maxSubscriptions = DEFAULT_MAX_SUBSCRIPTIONS) {}

  get count(): number {
    return this.open.size;
  }

  /** A stream for this request, or the JSON-RPC error that answers it instead (as SDK v2 answers). */
  listen(request: { id: RequestId; params?: unknown }, format: EventFormat, context: ListenContext, signal?: AbortSignal): EventStream | JSONRPCMessage {
    if (this.open.size >= this.maxSubscriptions) return errorAnswer(request.id, INTERNAL_ERROR, 'Subscription limit reached');
    const requested = filterOf(request.params);
    if (!requested) return errorAnswer(request.id, INVALID_PARAMS, "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter");
    const filter = honored(requested, context.capabilities);
    const stream = new EventStream(format, () => this.open.delete(subscription), signal);
    const subscription: Subscription = { id: request.id, filter, stream, serverInfo: context.serverInfo };
    stream.send(stamped({ method: 'notifications/subscriptions/acknowledged', params: { notifications: filter } }, request.id));
    if (Object.keys(filter).length === 0) this.end(subscription);
    else this.open.add(subscription);
    return stream;
  }

  /** Ends every stream with its closing result (the handler is closing). */
  closeAll(): void {
    for (const subscription of [...this.open]) this.end(subscription);
  }

  private publish(event: ServerEvent): void {
    for (const subscription of [...this.open]) {
      if (subscription.stream.closed) {
        this.open.delete(subscription);
        continue;
      }
      if (!accepts(subscription.filter, event)) continue;
      const params = event.uri === undefined ? {} : { uri: event.uri };
      subscription.stream.send(stamped({ method: event.method, params }, subscription.id));
    }
  }

  private end(subscription: Subscription): void {
    this.open.delete(subscription);
    const { serverInfo } = subscription;
    const meta = { [SUBSCRIPTION_ID_META_KEY]: subscription.id, ...(serverInfo !== undefined && { [SERVER_INFO_META_KEY]: serverInfo }) };
    subscription.stream.send({ jsonrpc: '2.0', id: subscription.id, result: { resultType: 'complete', _meta: meta } } as JSONRPCMessage);
    subscription.stream.close();
  }
}

function stamped(notification: { method: string; params: Record<string, unknown> }, subscriptionId: RequestId): JSONRPCMessage {
  const meta = isRecord(notification.params._meta) ? notification.params._meta : {};
  return {
    jsonrpc: '2.0',
    method: notification.method,
    params: { ...notification.params, _meta: { ...meta, [SUBSCRIPTION_ID_META_KEY]: subscriptionId } },
  } as JSONRPCMessage;
}

function errorAnswer(id: RequestId, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage;
}

/** The request's filter, when it is a well-formed SubscriptionFilter. */
function filterOf(params: unknown): Filter | undefined {
  const raw = isRecord(params) ? params.notifications : undefined;
  if (!isRecord(raw)) return undefined;
  for (const flag of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (raw[flag] !== undefined && typeof raw[flag] !== 'boolean') return undefined;
  }
  const uris = raw.resourceSubscriptions;
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((uri) => typeof uri === 'string'))) return undefined;
  return raw as Filter;
}

/** The part of a filter the server's capabilities allow (all of it when they are not known), as SDK v2 honors it. */
function honored(requested: Filter, capabilities: Record<string, unknown> | undefined): Filter {
  const allows = (area: string, bit: string) => {
    if (capabilities === undefined) return true;
    const entry = capabilities[area];
    return isRecord(entry) && entry[bit] === true;
  };
  const out: Filter = {};
  if (requested.toolsListChanged === true && allows('tools', 'listChanged')) out.toolsListChanged = true;
  if (requested.promptsListChanged === true && allows('prompts', 'listChanged')) out.promptsListChanged = true;
  if (requested.resourcesListChanged === true && allows('resources', 'listChanged')) out.resourcesListChanged = true;
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined && uris.length > 0 && allows('resources', 'subscribe')) out.resourceSubscriptions = [...uris];
  return out;
}

function accepts(filter: Filter, event: ServerEvent): boolean {
  switch (event.method) {
    case 'notifications/tools/list_changed':
      return filter.toolsListChanged === true;
    case 'notifications/prompts/list_changed':
      return filter.promptsListChanged === true;
    case 'notifications/resources/list_changed':
      return filter.resourcesListChanged === true;
    default:
      return event.uri !== undefined && filter.resourceSubscriptions?.includes(event.uri) === true;
  }
}
