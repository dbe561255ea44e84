import { spawn as nodeSpawn, type ChildProcess, type IOType, type SpawnOptions } from 'node:child_process';
import process from 'node:process';
import { PassThrough, type Stream } from 'node:stream';
import type { JSONRPCMessage, Transport } from '../mcp/types.js';
import type { MessageAdapter, WireKind } from '../codec/message-codec.js';
import { StreamConnection, type StreamWireOptions } from '../connection/stream-connection.js';
import type { WireChoice, WireSelection } from '../wire-choice/wire-selection.js';
import { adapterFromOption, type NativeBytesOptions } from '../native-bytes/adapter.js';
import { getDefaultEnvironment } from './default-environment.js';

/** How long close() waits after ending the child's stdin, then after SIGTERM, before the next step. */
const CLOSE_STEP_MS = 2000;

export type SpawnFunction = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export interface StdioMsgpackServerParameters extends StreamWireOptions {
  command: string;
  args?: string[];
  /** Added to a safe default environment (getDefaultEnvironment(), the SDKs' choice of variables). */
  env?: Record<string, string>;
  stderr?: IOType | Stream | number;
  cwd?: string;
  /**
   * The wire to speak. 'auto' (default): start in JSON lines, offer msgpack-v1 on the first requests, and
   * switch when the server accepts (SPEC.md 7.1), so any JSON-only server works at once and ours moves to
   * MessagePack after its first answer. 'msgpack': MessagePack from the first byte, for servers known to
   * speak it (a JSON-only server never answers). 'json': JSON lines only, no offer.
   */
  wire?: WireChoice;
  /** Called once, when the wire is settled (see `onwireselected` on the transport). */
  onwireselected?: (selection: WireSelection) => void;
  /** Replaces child_process.spawn (for example cross-spawn on Windows, or a sandboxing wrapper). */
  spawn?: SpawnFunction;
  /**
   * The native-bytes extension (SPEC.md): offer it on the msgpack wire; once the server confirms, media
   * arrives as bin (handed to the SDK as base64, or as bytes through callToolNative() & co.). Default: not
   * offered, but placeholders from nativeImage() & co. are still sent as base64; false: no adapter at all.
   */
  nativeBytes?: boolean | NativeBytesOptions;
}

/**
 * Drop-in for the SDK's StdioClientTransport that speaks msgpack-v1 (or JSON) to a child process.
 *
 * If the child exits, the transport closes at once, so the SDK fails every pending request with
 * "Connection closed"; if it died in the middle of a message, onerror says so first.
 */
export class StdioMsgpackClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Called once per connection with the wire it settled on: at start() when `wire` forces one, else when the
   * server's first result arrives (before that result is handed on), 'msgpack' if it accepted the offer.
   */
  onwireselected?: (selection: WireSelection) => void;

  private child: ChildProcess | undefined;
  private connection: StreamConnection | undefined;
  private readonly stderrStream: PassThrough | null = null;
  private closedNotified = false;
  private adapter: MessageAdapter | undefined;

  constructor(private readonly params: StdioMsgpackServerParameters) {
    if (params.stderr === 'pipe' || params.stderr === 'overlapped') this.stderrStream = new PassThrough();
    this.adapter = adapterFromOption('client', params.nativeBytes);
    this.onwireselected = params.onwireselected;
  }

  /** The wire in use: on 'auto', 'json' until the server has accepted the offer, then 'msgpack'. */
  get wire(): WireKind {
    return this.connection?.currentWire ?? this.startWire;
  }

  private get startWire(): WireKind {
    return this.params.wire === 'msgpack' ? 'msgpack' : 'json';
  }

  /** The child's stderr when `stderr: 'pipe'` was given; available before start(), as in the SDK. */
  get stderr(): Stream | null {
    return this.stderrStream ?? this.child?.stderr ?? null;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) {
      throw new Error('StdioMsgpackClientTransport already started! If using Client class, note that connect() calls start() automatically.');
    }
    return new Promise((resolve, reject) => {
      const spawn = this.params.spawn ?? nodeSpawn;
      const child = spawn(this.params.command, this.params.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        stdio: ['pipe', 'pipe', this.params.stderr ?? 'inherit'],
        shell: false,
        windowsHide: process.platform === 'win32',
        cwd: this.params.cwd,
      });
      this.child = child;
      const auto = (this.params.wire ?? 'auto') === 'auto';
      const connection = new StreamConnection(
        child.stdout!,
        child.stdin!,
        this.startWire,
        {
          message: (message) => this.onmessage?.(message),
          error: (error) => this.onerror?.(error),
          wireSelected: (selection) => this.onwireselected?.(selection),
          // A framing error (a header over the cap, a JSON line too long) leaves the child running but its
          // output unreadable: end it, so pending requests fail now rather than never. When its stdout
          // simply ended (it exited or closed it), 'close' below finishes the job.
          broken: (error) => {
            if (error && error.code !== 'truncated-frame') void this.close();
          },
        },
        { ...this.params, adapter: this.adapter, upgrade: auto ? 'offer' : undefined },
      );
      this.connection = connection;
      connection.attach();
      if (!auto) this.onwireselected?.({ wire: this.startWire, reason: 'forced' });
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
        this.notifyClosed();
      });
      child.on('spawn', () => resolve());
      child.on('close', (code, signal) => {
        connection.closeOutput(new Error(`Not connected: server process exited (${describeExit(code, signal)})`));
        connection.detach();
        if (this.child === child) {
          this.child = undefined;
          // Exits we did not ask for are worth an error: pending requests are about to fail.
          this.onerror?.(new Error(`MCP server process exited unexpectedly (${describeExit(code, signal)})`));
        }
        this.notifyClosed();
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('error', (error) => this.onerror?.(error));
      if (this.stderrStream && child.stderr) child.stderr.pipe(this.stderrStream);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!this.connection || !this.child) return Promise.reject(new Error('Not connected'));
    return this.connection.send(message);
  }

  /** Ends the child's stdin, then SIGTERM, then SIGKILL, waiting up to 2 s between steps. */
  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child) {
      this.notifyClosed();
      return;
    }
    this.connection?.closeOutput(new Error('Not connected: transport closed'));
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('close', () => resolve());
    });
    const waitOrTimeout = () => Promise.race([exited, delay(CLOSE_STEP_MS)]);
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await waitOrTimeout();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await waitOrTimeout();
    }
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    this.connection?.detach();
    this.notifyClosed();
  }

  private notifyClosed(): void {
    if (this.closedNotified) return;
    this.closedNotified = true;
    this.onclose?.();
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
