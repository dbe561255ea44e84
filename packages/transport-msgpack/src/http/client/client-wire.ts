import type { WireKind } from '../../codec/message-codec.js';
import type { HttpFallbackReason, WireChoice, WireSelection } from '../../wire-choice/wire-selection.js';
import { planWire } from '../../wire-choice/wire-plan.js';
import { readAnswer, wireDecision } from './wire-fallback.js';
import { fromMsgpackServer } from '../media.js';

/** Why and when the client stopped speaking MessagePack to a server. */
export interface WireFallback {
  from: 'msgpack';
  to: 'json';
  reason: HttpFallbackReason;
  status: number;
}

/** Where the wire's news goes: the transport's `onwirefallback` and `onwireselected`, and the endpoint's memory. */
export interface ClientWireEvents {
  fellBack(fallback: WireFallback): void;
  selected(selection: WireSelection): void;
  /** A firm finding about the endpoint, for later connections (wire-memory.ts). */
  learned?(wire: WireKind): void;
}

/**
 * The wire a client speaks to one server: the forced one, or on 'auto' MessagePack until an answer shows
 * the server does not take it (wire-fallback.ts). The first answer that shows either way settles it.
 */
export class ClientWire {
  private wire: WireKind;
  /** Whether an answer may still show that the server does not take MessagePack ('auto' until settled). */
  private open: boolean;
  /** The server showed it speaks msgpack-v1 (a MessagePack reply or the SPEC.md 9.6 header), so it reads a request body in either encoding (9.2). */
  private signalled = false;
  /** Whether a MessagePack post has been answered yet: a 5xx to the first one is retried as JSON. */
  private answered = false;
  /** Settled at the outset by what an earlier connection learned (`recalled`), not by the option. */
  private readonly remembered: boolean;

  constructor(
    choice: WireChoice | undefined,
    private readonly events: ClientWireEvents,
    /** What an earlier connection to the same endpoint settled on (wire-memory.ts); 'auto' only. */
    recalled?: WireKind,
  ) {
    const plan = planWire(choice, 'http-client');
    this.wire = plan.start!;
    this.open = !plan.forced;
    this.remembered = this.open && recalled === 'json';
    if (this.remembered) {
      this.wire = 'json';
      this.open = false;
    }
  }

  get current(): WireKind {
    return this.wire;
  }

  /** Whether the server has shown it speaks msgpack-v1 (a MessagePack reply, or SPEC.md 9.6's header). */
  get serverSpeaksMsgpack(): boolean {
    return this.signalled;
  }

  /** Whether each request may go in either encoding: on MessagePack, to a server that said it speaks it. */
  get perMessage(): boolean {
    return this.wire === 'msgpack' && this.signalled;
  }

  /** At start(): a forced wire is settled from the outset. */
  start(): void {
    if (!this.open) this.events.selected({ wire: this.wire, reason: this.remembered ? 'remembered' : 'forced' });
  }

  /**
   * Learns from the answer to a post sent on `sentOn`: the response to go on reading (a copy when the
   * decision read the body), or undefined when the message must be sent again, as JSON.
   */
  async learn(response: Response, sentOn: WireKind, maxBytes: number): Promise<Response | undefined> {
    if (!this.signalled && fromMsgpackServer(response.headers)) this.signalled = true;
    if (sentOn !== 'msgpack' || !this.open) return response;
    const read = await readAnswer(response, maxBytes);
    const decision = wireDecision({ ...read.answer, firstOfConnection: !this.answered });
    this.answered = true;
    if (decision?.wire === 'msgpack') {
      this.settle({ wire: 'msgpack', reason: 'msgpack-reply', status: read.response.status });
      this.events.learned?.('msgpack');
    } else if (decision) {
      this.fallBack(decision.reason, read.response.status);
      if (decision.resend) {
        await read.response.body?.cancel();
        return undefined;
      }
    }
    return read.response;
  }

  private fallBack(reason: WireFallback['reason'], status: number): void {
    if (this.wire === 'json') return;
    this.wire = 'json';
    // A crash may be a passing one: only an answer about the body itself is kept for later connections.
    if (reason !== 'server-error') this.events.learned?.('json');
    this.events.fellBack({ from: 'msgpack', to: 'json', reason, status });
    this.settle({ wire: 'json', reason, status });
  }

  private settle(selection: WireSelection): void {
    if (!this.open) return;
    this.open = false;
    this.events.selected(selection);
  }
}
