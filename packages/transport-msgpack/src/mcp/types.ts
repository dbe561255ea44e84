/**
 * The MCP shapes the transports deal in, declared here rather than imported from an SDK, so the package
 * (and its .d.ts) works with SDK v1 (`@modelcontextprotocol/sdk`) or v2 (`@modelcontextprotocol/client`,
 * `/server`, `/core`) alone. They are structural: each SDK's own messages, options and callbacks fit them,
 * and the transports fit each SDK's Transport interface (test/sdk-types.test.ts compiles both ways).
 */

export type RequestId = string | number;

/** `_meta` of a request, notification or result: open, with the keys MCP defines. */
export interface MetaObject {
  progressToken?: string | number;
  [key: string]: unknown;
}

export interface JSONRPCRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: { _meta?: MetaObject; [key: string]: unknown };
}

export interface JSONRPCNotification {
  jsonrpc: '2.0';
  method: string;
  params?: { _meta?: MetaObject; [key: string]: unknown };
}

export interface JSONRPCResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: { _meta?: MetaObject; [key: string]: unknown };
}

export interface JSONRPCErrorResponse {
  jsonrpc: '2.0';
  id?: RequestId;
  error: { code: number; message: string; data?: unknown };
}

export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResultResponse | JSONRPCErrorResponse;

/** What a server transport knows about the caller (the OAuth layer in front of it fills it in). */
export interface AuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt?: number;
  resource?: URL;
  extra?: Record<string, unknown>;
}

/** What SDK v1's handlers see of the HTTP request a message came in on (`extra.requestInfo`). */
export interface RequestInfo {
  headers: Record<string, string | string[] | undefined>;
  url?: URL;
}

/** The HTTP request itself, as SDK v2's handlers read it (`ctx.http.req`): a web Request, or on node:http a
 * light stand-in with the same method, url and headers.get() (its body is already read). */
export interface HttpRequestView {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  readonly signal?: AbortSignal;
}

export interface MessageExtraInfo {
  requestInfo?: RequestInfo;
  request?: HttpRequestView;
  authInfo?: AuthInfo;
  closeSSEStream?: () => void;
  closeStandaloneSSEStream?: () => void;
}

export interface TransportSendOptions {
  relatedRequestId?: RequestId;
  resumptionToken?: string;
  onresumptiontoken?: (token: string) => void;
  /** SDK v2: aborts the HTTP request (and its reply stream) that carries this one message. */
  requestSignal?: AbortSignal;
  /** SDK v2: called when this message's reply stream ends for any reason but `requestSignal`. */
  onRequestStreamEnd?: () => void;
  /** SDK v2: extra HTTP headers for the request that carries this one message. */
  headers?: Readonly<Record<string, string>>;
}

/** The contract between a transport and the SDK's Client or Server, as both SDK generations define it. */
export interface Transport {
  start(): Promise<void>;
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
  close(): Promise<void>;
  readonly hasPerRequestStream?: boolean;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  sessionId?: string;
  setProtocolVersion?: (version: string) => void;
  setSupportedProtocolVersions?: (versions: string[]) => void;
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Resumable streams for the HTTP server transport (the SDKs' EventStore interface). */
export interface EventStore {
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string>;
  getStreamIdForEventId?(eventId: string): Promise<string | undefined>;
  replayEventsAfter(lastEventId: string, handlers: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string>;
}

/** How the HTTP client retries a reply stream that broke before its reply arrived. */
export interface StreamableHTTPReconnectionOptions {
  initialReconnectionDelay: number;
  maxReconnectionDelay: number;
  reconnectionDelayGrowFactor: number;
  maxRetries: number;
}

/**
 * An OAuth client provider (either SDK's `OAuthClientProvider`). The transport reads the access token
 * itself and hands the provider to the installed SDK's `auth()` for everything else.
 */
export interface OAuthClientProvider {
  tokens(): { access_token: string } | undefined | Promise<{ access_token: string } | undefined>;
  redirectToAuthorization(authorizationUrl: URL): void | Promise<void>;
}

/**
 * SDK v2's minimal `AuthProvider`: a bearer token from `token()`, and `onUnauthorized()` to get a new one
 * after a 401 (the request is then sent once more).
 */
export interface TokenAuthProvider {
  token(): string | undefined | Promise<string | undefined>;
  onUnauthorized?(context: { response: Response; serverUrl: URL; fetchFn: FetchLike }): Promise<void>;
}
