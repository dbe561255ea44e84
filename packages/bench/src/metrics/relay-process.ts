import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { watchChild } from '../runner/child-watch.js';
import type { ByteSource } from './bytes.js';

const RELAY_ENTRY = fileURLToPath(new URL('../servers/relay.js', import.meta.url));

/** A counting relay running in a child process (servers/relay.ts): its port, its counts, and how to stop it. */
export interface RelayProcess extends ByteSource {
  port: number;
  pid: number;
  snapshot(): Promise<{ sent: number; received: number }>;
  close(): Promise<void>;
}

/**
 * The relay process of a run: one child (servers/relay.ts) holding a relay per HTTP session, asked over its
 * stdin, one line a command, answered in order, outside the measured calls.
 */
export class RelayHost {
  private constructor(
    readonly pid: number,
    private readonly ask: (command: string) => Promise<string>,
    private readonly stop: () => Promise<void>,
    private readonly exited: () => boolean,
  ) {}

  /** Starts the relay process under `runtime` (the benchmark's own by default); `--target` opens relay 0. */
  static async start(runtime = process.execPath, target?: number): Promise<{ host: RelayHost; ready: string }> {
    const child = spawn(runtime, [RELAY_ENTRY, ...(target === undefined ? [] : ['--target', String(target)])], { stdio: ['pipe', 'pipe', 'pipe'] });
    // Every HTTP session's bytes go through it: its death is reported as any server's is.
    const watched = watchChild(child, { role: 'byte-counting relay', runtime }, { stderr: child.stderr });
    // A relay that died shows as a failed count (below), not as an unhandled EPIPE.
    child.stdin!.on('error', () => {});
    const lines = createInterface({ input: child.stdout! });
    const waiting: Array<(line: string) => void> = [];
    let exited = false;
    const nextLine = () =>
      new Promise<string>((resolve, reject) => {
        if (exited) reject(new Error('the byte-counting relay exited'));
        else waiting.push(resolve);
      });
    lines.on('line', (line) => waiting.shift()?.(line));
    child.once('exit', (code) => {
      exited = true;
      for (const resolve of waiting.splice(0)) resolve(`EXIT ${code}`);
    });
    const ready = await Promise.race([nextLine(), new Promise<string>((resolve) => setTimeout(() => resolve('TIMEOUT'), 20_000).unref())]);
    if (!/^RELAY_READY\b/.test(ready)) {
      watched.kill('SIGKILL');
      throw new Error(`the byte-counting relay did not start (${ready})`);
    }
    const ask = (command: string) => {
      if (exited || child.stdin!.writableEnded) return Promise.reject(new Error('the byte-counting relay exited'));
      const answer = nextLine();
      child.stdin!.write(`${command}\n`);
      return answer;
    };
    const stop = async () => {
      if (exited) return;
      // Its stdin's end is its stop; SIGKILL if it has not exited within 2 s.
      watched.expectExit();
      child.stdin!.end();
      const timer = setTimeout(() => watched.kill('SIGKILL'), 2_000);
      await watched.exited;
      clearTimeout(timer);
    };
    return { host: new RelayHost(child.pid!, ask, stop, () => exited), ready };
  }

  /** A relay in front of `targetPort`, counting its own bytes; closing it leaves the process running. */
  async open(targetPort: number): Promise<RelayProcess> {
    const opened = /^OPENED (\d+) (\d+)$/.exec(await this.ask(`open ${targetPort}`));
    if (!opened) throw new Error('the byte-counting relay opened no relay');
    const id = opened[1]!;
    let closed = false;
    return {
      port: Number(opened[2]),
      pid: this.pid,
      snapshot: () => this.count(id),
      close: async () => {
        if (closed || this.exited()) return;
        closed = true;
        await this.ask(`close ${id}`);
      },
    };
  }

  /** Bytes so far through relay `id`, client to server and back. */
  async count(id: string): Promise<{ sent: number; received: number }> {
    const [sent, received] = (await this.ask(`count ${id}`)).split(' ').map(Number);
    if (!Number.isFinite(sent) || !Number.isFinite(received)) throw new Error('the byte-counting relay answered no count');
    return { sent: sent!, received: received! };
  }

  close(): Promise<void> {
    return this.stop();
  }
}

/** A relay process of its own in front of `targetPort`: closing the relay ends the process. */
export async function startRelayProcess(targetPort: number, runtime = process.execPath): Promise<RelayProcess> {
  const { host, ready } = await RelayHost.start(runtime, targetPort);
  const port = Number(/^RELAY_READY (\d+)$/.exec(ready)?.[1]);
  return {
    port,
    pid: host.pid,
    snapshot: () => host.count('0'),
    close: () => host.close(),
  };
}
