import { HttpMsgpackClientTransport, type JSONRPCMessage, type OAuthClientProvider, type WireChoice, type WireSelection } from 'mcp-msgpack-transport';
import { isResponse } from '../jsonrpc.js';
import type { Log } from '../log.js';

export interface RemoteOptions {
  url: URL;
  /** Sent with every request (the --header and bearer options). */
  headers: Record<string, string>;
  wire: WireChoice;
  /** Ask for media as native bytes on MessagePack (they reach the host as base64 all the same). */
  nativeBytes: boolean;
  authProvider?: OAuthClientProvider;
  log: Log;
}

type SendOptions = Parameters<HttpMsgpackClientTransport['send']>[1];

let bridgeRequests = 0;

/**
 * One session with the remote server: the transport, plus the initialize the bridge sends itself when it
 * replaces an expired session (its answer stays here; the host already has one).
 */
export class RemoteSession {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  private readonly transport: HttpMsgpackClientTransport;
  private readonly own = new Map<string, (message: JSONRPCMessage) => void>();

  constructor(options: RemoteOptions) {
    this.transport = new HttpMsgpackClientTransport(options.url, {
      requestInit: { headers: options.headers },
      wire: options.wire,
      nativeBytes: options.nativeBytes,
      authProvider: options.authProvider,
      // The bridge's SDK is v2 (its dependency): v2's OAuth flow, with its issuer checks, whatever the host speaks.
      oauthSdk: 2,
      onwireselected: (selection) => reportWire(options, selection),
    });
    this.transport.onmessage = (message) => {
      const mine = isResponse(message) && typeof message.id === 'string' ? this.own.get(message.id) : undefined;
      if (mine) mine(message);
      else this.onmessage?.(message);
    };
    this.transport.onerror = (error) => this.onerror?.(error);
    // The call SDK v2's Client makes: it tells the transport to run OAuth through v2, the SDK this package uses.
    this.transport.setSupportedProtocolVersions([]);
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** Whether the server gave this connection a session (so a 404 means it expired). */
  get hadSession(): boolean {
    return this.transport.sessionId !== undefined;
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    return this.transport.send(message, options);
  }

  setProtocolVersion(version: string): void {
    this.transport.setProtocolVersion(version);
  }

  /** Opens the session with the host's initialize params, then says initialized; the answer is not forwarded. */
  async initialize(params: unknown, timeoutMs: number): Promise<void> {
    const id = `mcp-msgpack-bridge-initialize-${++bridgeRequests}`;
    const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to initialize within ${timeoutMs} ms`)), timeoutMs);
      this.own.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
    try {
      await this.transport.send({ jsonrpc: '2.0', id, method: 'initialize', params } as JSONRPCMessage);
      const message = (await answer) as { result?: { protocolVersion?: unknown }; error?: { message?: string } };
      if (message.error) throw new Error(`initialize refused: ${message.error.message}`);
      if (typeof message.result?.protocolVersion === 'string') this.transport.setProtocolVersion(message.result.protocolVersion);
      await this.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
    } finally {
      this.own.delete(id);
    }
  }

  finishAuth(callback: URLSearchParams): Promise<void> {
    return this.transport.finishAuth(callback);
  }

  async close(): Promise<void> {
    this.onmessage = undefined;
    this.onerror = undefined;
    await this.transport.close().catch(() => {});
  }
}

/** One line saying which wire the server leg settled on (the first session only: recoveries say nothing new). */
let reported = false;
function reportWire(options: RemoteOptions, selection: WireSelection): void {
  if (reported) return;
  reported = true;
  const wire = selection.wire === 'msgpack' ? 'MessagePack' : 'JSON';
  options.log(`connected to ${options.url.href} (${wire}${selection.wire === 'json' ? `, ${selection.reason}` : ''})`);
}
