import { FramingError } from '../../wire/errors.js';

/** One server-sent event, as the JSON wire's streams carry them. */
export interface SseEvent {
  event?: string;
  id?: string;
  data: string;
  retry?: number;
}

/**
 * Incremental text/event-stream parser (the WHATWG rules the SDK's client follows): fields split on the
 * first colon, one optional space after it, comments ignored, an empty line ends an event. Used on the
 * JSON wire only.
 *
 * An event is capped at `maxChars` characters (the client's `maxMessageBytes`; a character is at least a
 * byte), counting its data lines and the line being read: past it, push() throws a FramingError
 * 'message-too-large' naming the cap, before more of that event is held.
 */
export class SseReader {
  private readonly text = new TextDecoder();
  /** Text of the line being read, from earlier chunks (joined once, when the line ends: linear time). */
  private readonly parts: string[] = [];
  /** The previous chunk ended in CR: an LF at the start of the next one belongs to it. */
  private pendingCr = false;
  private data: string[] = [];
  private event: string | undefined;
  private id: string | undefined;
  private retry: number | undefined;
  private sawField = false;
  /** Characters held for the event being read: its data lines so far and the line being read. */
  private held = 0;
  /** Characters of the event's data lines so far (each with its newline). */
  private dataChars = 0;

  constructor(private readonly maxChars: number = Number.POSITIVE_INFINITY) {}

  push(chunk: Uint8Array, onEvent: (event: SseEvent) => void): void {
    const text = this.text.decode(chunk, { stream: true });
    let start = 0;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (text.startsWith('\n')) start = 1;
    }
    // Next CR and LF positions are cached so each character is scanned once, however many lines a chunk holds.
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    for (;;) {
      if (lf >= 0 && lf < start) lf = text.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = text.indexOf('\r', start);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) break;
      const piece = text.slice(start, end);
      const line = this.parts.length > 0 ? this.parts.join('') + piece : piece;
      this.parts.length = 0;
      // The line is whole now: what counts is what the event keeps of it (line() adds a data line back).
      this.held = this.dataChars;
      if (end === cr) {
        if (end + 1 === text.length) this.pendingCr = true;
        start = text[end + 1] === '\n' ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
      this.line(line, onEvent);
    }
    if (start < text.length) {
      this.parts.push(text.slice(start));
      this.hold(text.length - start);
    }
  }

  private hold(chars: number): void {
    this.held += chars;
    if (this.held > this.maxChars) {
      throw new FramingError('message-too-large', `event of more than ${this.held} characters, over the client's maxMessageBytes cap of ${this.maxChars}`);
    }
  }

  private line(line: string, onEvent: (event: SseEvent) => void): void {
    if (line === '') {
      if (this.sawField) onEvent({ event: this.event, id: this.id, data: this.data.join('\n'), retry: this.retry });
      this.data = [];
      this.dataChars = 0;
      this.held = 0;
      this.event = undefined;
      this.id = undefined;
      this.retry = undefined;
      this.sawField = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.sawField = true;
    if (field === 'data') {
      this.data.push(value);
      this.dataChars += value.length + 1;
      this.hold(value.length + 1);
    } else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }
}
