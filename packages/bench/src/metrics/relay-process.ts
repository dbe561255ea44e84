import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { onInterrupt } from '../interrupt.js';
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
 * Starts the relay in front of `targetPort` under `runtime` (the benchmark's own by default). Counts are
 * asked for over its stdin, one at a time, outside the measured calls.
 */
export async function startRelayProcess(targetPort: number, runtime = process.execPath): Promise<RelayProcess> {
  const child = spawn(runtime, [RELAY_ENTRY, '--target', String(targetPort)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const forget = onInterrupt(() => child.kill('SIGKILL'));
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
    forget();
    for (const resolve of waiting.splice(0)) resolve(`EXIT ${code}`);
  });
  const ready = await Promise.race([nextLine(), new Promise<string>((resolve) => setTimeout(() => resolve('TIMEOUT'), 20_000).unref())]);
  const match = /^RELAY_READY (\d+)$/.exec(ready);
  if (!match) {
    child.kill('SIGKILL');
    throw new Error(`the byte-counting relay did not start (${ready})`);
  }
  return {
    port: Number(match[1]),
    pid: child.pid!,
    async snapshot() {
      if (exited || child.stdin!.writableEnded) throw new Error('the byte-counting relay exited');
      const answer = nextLine();
      child.stdin!.write('count\n');
      const [sent, received] = (await answer).split(' ').map(Number);
      if (!Number.isFinite(sent) || !Number.isFinite(received)) throw new Error('the byte-counting relay answered no count');
      return { sent: sent!, received: received! };
    },
    async close() {
      if (exited) return;
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await done;
      clearTimeout(timer);
    },
  };
}
