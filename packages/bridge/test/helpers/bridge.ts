import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const BRIDGE_BIN = fileURLToPath(new URL('../../../bin/mcp-msgpack-bridge.js', import.meta.url));
export const LIMIT = 20_000;

export interface HostSession {
  client: Client;
  /** What the bridge wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * A desktop host's view: a stock SDK stdio client whose config says `command: <runtime>, args: [bridge, URL,
 * ...]`, the way Claude Desktop or Cursor launch an `npx mcp-msgpack-bridge URL` entry.
 */
export async function connectHost(url: URL | string, extraArgs: string[] = []): Promise<HostSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BRIDGE_BIN, String(url), ...extraArgs], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'desktop-host', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close().catch(() => {}) };
}

export interface RunningBridge {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** The bridge as a bare process (for exits and the reverse mode's URL on stdout). */
export function runBridge(args: string[], env?: NodeJS.ProcessEnv): RunningBridge {
  const child = spawn(process.execPath, [BRIDGE_BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], ...(env ? { env } : {}) });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function waitFor(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
