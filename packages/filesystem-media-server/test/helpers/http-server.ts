import { spawn } from 'node:child_process';
import { after, before } from 'node:test';
import { OUR_CLI } from './client.js';
import { makeLayout, type Layout } from './layout.js';

export interface SpawnedHttpServer {
  url: URL;
  stop(): Promise<void>;
}

/** Starts our CLI with --http on a free loopback port; resolves with the URL it prints. */
export async function spawnHttpServer(args: string[], timeoutMs = 15_000): Promise<SpawnedHttpServer> {
  const child = spawn(process.execPath, [OUR_CLI, '--http', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no URL within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) {
          clearTimeout(timer);
          resolve(new URL(line.trim()));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited (${code}) before listening: ${stderr}`));
      });
    });
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * For a whole test file: a fresh layout, and our CLI serving it over HTTP (started in `before`, stopped and
 * removed in `after`). Read `layout` and `http` inside tests, once `before` has run.
 */
export function servedLayout(): { readonly layout: Layout; readonly http: SpawnedHttpServer } {
  const state = {} as { layout: Layout; http: SpawnedHttpServer };
  before(async () => {
    state.layout = await makeLayout();
    state.http = await spawnHttpServer([state.layout.allowed]);
  });
  after(async () => {
    await state.http?.stop();
    await state.layout?.cleanup();
  });
  return state;
}
