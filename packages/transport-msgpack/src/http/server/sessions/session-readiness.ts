import { isInitialized, isRequest } from '../../../jsonrpc/kinds.js';
import { TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';
import type { JSONRPCMessage } from '../../../mcp/types.js';
import type { Refusal } from '../exchange/responses.js';

/** How long a request that came before `notifications/initialized` waits for it, by default. */
export const DEFAULT_INITIALIZED_WAIT_MS = 2_000;
/**
 * Requests of one session that may wait for the notification at once; more are refused at once, so a client
 * that never sends it cannot park an unbounded number of requests (each holds its decoded body).
 */
export const MAX_WAITING_FOR_INITIALIZED = 8;

/**
 * Whether a session's client has said `notifications/initialized` (SPEC.md 9.4), and what a request that
 * comes before it gets. MCP starts normal operation only after that notification, so a client that skips it
 * (one opening sessions and calling tools on them at once) is refused before any handler runs; `ping` is
 * allowed at any time. But relays that forward each message without waiting for the previous one (mcp-remote
 * does) can deliver the notification's POST after the next request's: such a request waits a moment for the
 * notification instead of failing a well-behaved client at random.
 */
export class SessionReadiness {
  private notified = false;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly waitMs: number = DEFAULT_INITIALIZED_WAIT_MS) {}

  get clientInitialized(): boolean {
    return this.notified;
  }

  /** Marks the notification seen (when its POST is admitted: a batch may carry it with requests). */
  noteMessages(messages: readonly JSONRPCMessage[]): void {
    if (this.notified || !messages.some(isInitialized)) return;
    this.notified = true;
    for (const wake of this.waiting) wake();
    this.waiting.clear();
  }

  /** The refusal of a request that came before the notification, after waiting for it where that can help. */
  async refusal(messages: readonly JSONRPCMessage[]): Promise<Refusal | undefined> {
    const early = notReadyRefusal(messages, this.notified);
    // A batch that holds the notification after a request has said its order itself: no later POST fixes it.
    if (!early || messages.some(isInitialized)) return early;
    if (this.waitMs <= 0 || this.waiting.size >= MAX_WAITING_FOR_INITIALIZED) return early;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.waitMs);
      (timer as { unref?: () => void }).unref?.();
      this.waiting.add(wake);
    });
    return notReadyRefusal(messages, this.notified);
  }

  /** Lets every waiting request go on at once (the session is closing: it will be answered as gone). */
  release(): void {
    for (const wake of [...this.waiting]) wake();
  }
}

/** The SDK transport's own refusal of a session that is not initialized, with the request's id and a reason. */
export function notReadyRefusal(messages: readonly JSONRPCMessage[], clientInitialized: boolean): Refusal | undefined {
  let ready = clientInitialized;
  // In message order: a batch may carry the notification first and its requests after it.
  for (const message of messages) {
    if (ready) return undefined;
    if (isInitialized(message)) ready = true;
    else if (isRequest(message) && message.method !== 'ping') {
      return {
        status: 400,
        code: TRANSPORT_ERROR,
        message: 'Bad Request: Server not initialized: send notifications/initialized before other requests',
        data: { reason: 'not-initialized' },
        id: message.id,
      };
    }
  }
  return undefined;
}
