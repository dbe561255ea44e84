import type { Writable } from 'node:stream';

/** Tells the user what runs now and how far along the run is. */
export interface Progress {
  /** Total number of steps (rounds) in the run. */
  begin(totalSteps: number): void;
  /** Steps added once the run has begun (quick mode's extra rounds). */
  extend(steps: number): void;
  /** A new scenario starts. */
  scenario(name: string, index: number, count: number): void;
  /** What is happening right now (shown live on a terminal). */
  update(text: string): void;
  /** One step (a round) finished. */
  tick(): void;
  /** A line that must stay visible (a skipped venue, a warning). */
  note(line: string): void;
  end(): void;
}

/**
 * Writes to `stream` (stderr, so stdout carries only the results): one live, rewritten line on a
 * terminal; plain lines (one per scenario and per round) elsewhere, for CI logs.
 */
export class StreamProgress implements Progress {
  private total = 1;
  private done = 0;
  private current = '';
  private readonly started = Date.now();
  private readonly live: boolean;

  constructor(
    private readonly stream: Writable & { isTTY?: boolean; columns?: number },
    live = Boolean(stream.isTTY),
  ) {
    this.live = live;
  }

  begin(totalSteps: number): void {
    this.total = Math.max(1, totalSteps);
  }

  extend(steps: number): void {
    this.total += steps;
  }

  scenario(name: string, index: number, count: number): void {
    this.line(`${this.prefix()} scenario ${index}/${count}: ${name}`);
  }

  update(text: string): void {
    this.current = text;
    if (this.live) this.redraw();
  }

  tick(): void {
    this.done = Math.min(this.total, this.done + 1);
    if (this.live) this.redraw();
    else this.stream.write(`${this.prefix()} ${this.current}\n`);
  }

  note(line: string): void {
    this.line(line);
  }

  end(): void {
    if (this.live) this.stream.write('\r\x1b[K');
  }

  private line(text: string): void {
    if (this.live) this.stream.write('\r\x1b[K');
    this.stream.write(text + '\n');
    if (this.live) this.redraw();
  }

  private redraw(): void {
    const width = Math.max(40, (this.stream.columns ?? 100) - 1);
    const text = `${this.prefix()} ${this.current}`;
    this.stream.write('\r\x1b[K' + (text.length > width ? text.slice(0, width - 1) + '…' : text));
  }

  private prefix(): string {
    const percent = Math.floor((this.done / this.total) * 100);
    const seconds = Math.floor((Date.now() - this.started) / 1000);
    return `[${String(percent).padStart(3)}% ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}]`;
  }
}

/** Progress that prints nothing (tests, --quiet). */
export class SilentProgress implements Progress {
  begin(): void {}
  extend(): void {}
  scenario(): void {}
  update(): void {}
  tick(): void {}
  note(): void {}
  end(): void {}
}
