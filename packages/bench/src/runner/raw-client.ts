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
