import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { FIXTURES } from './client.js';

export interface RunningSwapper {
  /** Resolves with the number of swaps made once the swapper has stopped and restored the real entry. */
  finished: Promise<number>;
  stop(): Promise<number>;
}

/** Starts the swapper child (bounded: `iterations` toggles or `maxMs`), resolving once it is swapping. */
export async function startSwapper(target: string, linkTarget: string, iterations = 200_000, maxMs = 4000): Promise<RunningSwapper> {
  const child: ChildProcess = spawn(process.execPath, [path.join(FIXTURES, 'swapper.js'), target, linkTarget, String(iterations), String(maxMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  const finished = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const swaps = /swaps (\d+)/.exec(output);
      if (code === 0 && swaps) resolve(Number(swaps[1]));
      else reject(new Error(`swapper exited with ${code}: ${output}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) resolve();
    });
    child.on('exit', () => reject(new Error(`swapper ended before it was ready: ${output}`)));
  });
  const killTimer = setTimeout(() => child.kill('SIGKILL'), maxMs + 10_000);
  finished.finally(() => clearTimeout(killTimer)).catch(() => {});
  return {
    finished,
    stop: () => {
      child.stdin!.end();
      return finished;
    },
  };
}
