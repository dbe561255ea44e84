import type { ChildProcess } from 'node:child_process';
import { FrameReader } from 'mcp-msgpack-transport/wire';

/** The client of servers/raw-media.ts: asks for a file by path, gets its bytes back; one answer per request, in order. */
export class RawPipeClient {
  private readonly reader = new FrameReader();
  private readonly waiting: { resolve(bytes: Uint8Array): void; reject(error: Error): void }[] = [];

  constructor(private readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => this.reader.push(chunk, (payload) => this.waiting.shift()?.resolve(payload)));
    child.once('exit', (code) => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(new Error(`raw media server exited (code ${code})`));
    });
  }

  read(path: string): Promise<Uint8Array> {
    const request = Buffer.from(path, 'utf8');
    const header = Buffer.allocUnsafe(4);
    header.writeUInt32BE(request.length, 0);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin!.write(Buffer.concat([header, request]));
    });
  }

  close(): void {
    this.child.stdin!.end();
  }
}

/**
 * The client of servers/raw-media-http.ts: POSTs a file's path, reads the body whole. A reader loop on Node,
 * where `arrayBuffer()` took twice the wall time; `arrayBuffer()` on Bun, where it is native.
 */
export class RawHttpClient {
  private readonly whole = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';

  constructor(private readonly url: URL) {}

  async read(path: string): Promise<Uint8Array> {
    const response = await fetch(this.url, { method: 'POST', body: path });
    if (!response.ok) throw new Error(`raw HTTP media server: ${response.status} ${await response.text()}`);
    if (this.whole) return new Uint8Array(await response.arrayBuffer());
    const length = Number(response.headers.get('content-length'));
    const bytes = new Uint8Array(length);
    let filled = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes.set(chunk, filled);
      filled += chunk.length;
    }
    return bytes.subarray(0, filled);
  }

  close(): void {}
}
