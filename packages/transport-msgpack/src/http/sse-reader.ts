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
  private buffer = '';
  private data: string[] = [];
  private event: string | undefined;
  private id: string | undefined;
  private retry: number | undefined;
  private sawField = false;

  push(chunk: Uint8Array, onEvent: (event: SseEvent) => void): void {
    this.buffer += this.text.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const lf = this.buffer.indexOf('\n', start);
      const cr = this.buffer.indexOf('\r', start);
      let end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) break;
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (end === cr && cr === this.buffer.length - 1) break;
      const line = this.buffer.slice(start, end);
      if (end === cr && this.buffer[cr + 1] === '\n') end++;
      start = end + 1;
      this.line(line, onEvent);
    }
    this.buffer = this.buffer.slice(start);
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
