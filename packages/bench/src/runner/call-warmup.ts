import { measureRound, type CallFunction } from './measure.js';
import type { Session } from './session.js';

/**
 * A warm-up counted in calls, on top of a scenario's warm-up in milliseconds. A server's JIT is still
 * compiling through its first thousands of calls (issue 41's profile, docs/MEASUREMENTS.md: a Node 20
 * replay server took 0.9-1.2 ms a call over its first thousand calls of the filesystem session and
 * 0.32-0.44 ms warm), so a warm-up of 100-500 ms measured that phase, not the server a user runs for hours.
 */
export interface CallWarmup {
  /** Calls a fresh server's session gets after the warm-up in ms, before the rounds. */
  calls: number;
  /** Calls for a session a previous scenario already warmed (a new payload through the same code). */
  reusedCalls: number;
  /** Calls per window whose server CPU per call is recorded, to show whether the warm-up levelled off. */
  window: number;
  /** Whether `calls` reaches the steady state (measured, see MEASUREMENTS.md), said beside the figures. */
  steady: boolean;
}

/** One session's warm-up in calls: what is left to make, and what its windows measured. */
export interface WarmupTurn {
  session: Session;
  call: CallFunction;
  remaining: number;
  /** Each window's server CPU per call, ms (none without /proc). */
  cpuMsPerCall: number[];
  /** The last window's wall time per call: a warm call's, which sizes the rounds. */
  lastMsPerCall?: number;
}

/**
 * Warms the sessions in turns, a window of calls each, on their own clients (the ones the rounds use: a new
 * session deoptimizes again), until each has made its calls. In turns, not one session after the other: a
 * Node 20 server left idle for the tens of seconds the others' warm-ups took was measured at up to twice its
 * last window's CPU per call in the rounds (docs/MEASUREMENTS.md, issue 41), the first warmed the worst.
 * `failed` is told of a session whose call throws; its turns stop.
 */
export async function warmInTurns(turns: WarmupTurn[], window: number, failed: (turn: WarmupTurn, error: unknown) => Promise<void>, onTurn: (turn: WarmupTurn) => void = () => {}): Promise<void> {
  let live = turns.filter((t) => t.remaining > 0);
  while (live.length > 0) {
    for (const turn of live) {
      onTurn(turn);
      try {
        const sample = await measureRound(turn.session, Math.min(window, turn.remaining), turn.call);
        turn.remaining -= sample.calls;
        turn.lastMsPerCall = sample.wallMs / sample.calls;
        if (sample.cpuMsPerCall !== undefined) turn.cpuMsPerCall.push(sample.cpuMsPerCall);
      } catch (error) {
        turn.remaining = 0;
        await failed(turn, error);
      }
    }
    live = live.filter((t) => t.remaining > 0);
  }
}
