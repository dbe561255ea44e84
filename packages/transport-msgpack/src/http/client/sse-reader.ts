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
      if (end === cr) {
        if (end + 1 === text.length) this.pendingCr = true;
        start = text[end + 1] === '\n' ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
      this.line(line, onEvent);
    }
    if (start < text.length) this.parts.push(text.slice(start));
  }

  private line(line: string, onEvent: (event: SseEvent) => void): void {
    if (line === '') {
      if (this.sawField) onEvent({ event: this.event, id: this.id, data: this.data.join('\n'), retry: this.retry });
      this.data = [];
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
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }
}
