/**
 * Bytes waiting to be sent, keyed by placeholder.
 *
 * The SDK validates a tool result as base64 before the transport sees it, and a Uint8Array fails that
 * check. So a handler returns a short, valid base64 placeholder instead (see nativeImage and friends),
 * and the bytes wait here until the native-bytes adapter swaps them in while encoding the message.
 *
 * Each placeholder is taken once. Bytes of a result that is never sent (a cancelled call, a result the
 * SDK refused) are dropped after `ttlMs`, and the total held is capped at `maxBytes`: registering past the
 * cap drops the oldest entries first. A placeholder sent after its bytes were dropped (or sent twice)
 * turns into a clear error for that message.
 */

export interface PlaceholderLimits {
  /** How long bytes wait for their message to be sent. Default 5 minutes. */
  ttlMs?: number;
  /** Most bytes held at once; older entries are dropped to make room. Default 512 MiB. */
  maxBytes?: number;
}

export const DEFAULT_PLACEHOLDER_TTL_MS = 5 * 60_000;
export const DEFAULT_PLACEHOLDER_MAX_BYTES = 512 * 1024 * 1024;

/**
 * Placeholders look like `mcpNB` + 16 hex digits (random per process) + 11 base-36 digits (a counter):
 * 32 characters, all in the base64 alphabet, so atob() accepts them and decodes to 24 bytes. The random
 * part makes a collision with real media data (which would be sent as the bytes it stands for)
 * practically impossible.
 */
const PREFIX = 'mcpNB';
const PLACEHOLDER_LENGTH = 32;
const COUNTER_DIGITS = PLACEHOLDER_LENGTH - PREFIX.length - 16;

interface Entry {
  bytes: Uint8Array;
  expiresAt: number;
}

export class PlaceholderRegistry {
  private readonly entries = new Map<string, Entry>();
  // Made on first use, not at load: Cloudflare Workers refuse random values in a module's global scope.
  private stemMade: string | undefined;
  private counter = 0;
  private heldBytes = 0;
  private ttlMs: number;
  private maxBytes: number;
  private sweepTimer: ReturnType<typeof setTimeout> | undefined;
  private sweepAt = Infinity;

  private stem(): string {
    return (this.stemMade ??= PREFIX + randomHex(8));
  }

  constructor(limits: PlaceholderLimits = {}) {
    this.ttlMs = DEFAULT_PLACEHOLDER_TTL_MS;
    this.maxBytes = DEFAULT_PLACEHOLDER_MAX_BYTES;
    this.configure(limits);
  }

  configure(limits: PlaceholderLimits): void {
    if (limits.ttlMs !== undefined) {
      if (!(limits.ttlMs > 0)) throw new RangeError('ttlMs must be a positive number of milliseconds');
      this.ttlMs = limits.ttlMs;
    }
    if (limits.maxBytes !== undefined) {
      if (!(limits.maxBytes >= 0)) throw new RangeError('maxBytes must be zero or more');
      this.maxBytes = limits.maxBytes;
    }
  }

  get limits(): Required<PlaceholderLimits> {
    return { ttlMs: this.ttlMs, maxBytes: this.maxBytes };
  }

  /** Entries and bytes currently waiting. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.heldBytes };
  }

  /** Holds `bytes` (not copied: do not change them until the message is sent) and returns its placeholder. */
  register(bytes: Uint8Array): string {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('native bytes must be a Uint8Array (or a Buffer)');
    const size = bytes.byteLength;
    if (size > this.maxBytes) {
      throw new RangeError(`native bytes of ${size} bytes exceed the placeholder budget of ${this.maxBytes} bytes (configureNativeBytes({ maxBytes }))`);
    }
    const now = Date.now();
    this.sweep(now);
    // Make room by dropping the oldest entries: they are the likeliest to belong to results never sent.
    for (const [key, entry] of this.entries) {
      if (this.heldBytes + size <= this.maxBytes) break;
      this.drop(key, entry);
    }
    const placeholder = this.stem() + (this.counter++).toString(36).padStart(COUNTER_DIGITS, '0');
    this.entries.set(placeholder, { bytes, expiresAt: now + this.ttlMs });
    this.heldBytes += size;
    this.scheduleSweep();
    return placeholder;
  }

  /** Whether `text` has the shape of a placeholder of this registry (cheap: never hashes long strings). */
  isPlaceholder(text: string): boolean {
    return text.length === PLACEHOLDER_LENGTH && text.startsWith(this.stem());
  }

  /**
   * The bytes behind a placeholder, left in place for the send that will take them (an event store copies
   * them before the message is sent); undefined if unknown, already taken or expired.
   */
  peek(placeholder: string): Uint8Array | undefined {
    const entry = this.entries.get(placeholder);
    return entry && entry.expiresAt >= Date.now() ? entry.bytes : undefined;
  }

  /** Removes and returns the bytes behind a placeholder; undefined if unknown, already taken or expired. */
  take(placeholder: string): Uint8Array | undefined {
    const entry = this.entries.get(placeholder);
    if (!entry) return undefined;
    this.drop(placeholder, entry);
    return entry.expiresAt >= Date.now() ? entry.bytes : undefined;
  }

  /** Drops everything (for tests and shutdown). */
  clear(): void {
    this.entries.clear();
    this.heldBytes = 0;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.heldBytes -= entry.bytes.byteLength;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt < now) this.drop(key, entry);
  }

  /** Keeps one unref'd timer set for the earliest expiry, so dropped bytes go even if nothing else runs. */
  private scheduleSweep(): void {
    let earliest = Infinity;
    for (const entry of this.entries.values()) earliest = Math.min(earliest, entry.expiresAt);
    if (earliest === Infinity || (this.sweepTimer && this.sweepAt <= earliest)) return;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepAt = earliest;
    this.sweepTimer = setTimeout(
      () => {
        this.sweepTimer = undefined;
        this.sweep(Date.now());
        this.scheduleSweep();
      },
      Math.max(0, earliest - Date.now()) + 1,
    );
    // Pending placeholders never keep a process alive.
    this.sweepTimer.unref?.();
  }
}

/**
 * The process-wide registry the helpers and every native-bytes adapter share. It stays on globalThis on
 * purpose: it must be one per process, not one per copy of this module. An application that imports the
 * ESM build while a dependency requires the CommonJS one (or two installed copies) would otherwise have
 * nativeImage() register bytes in one registry and the transport look in another: the placeholder would
 * go out as if it were the base64 data, a wrong image with no error. It cannot be per transport either:
 * nativeImage() and friends are called in handlers, which know no transport. (native-bytes-units.test.ts
 * checks the sharing.)
 */
const GLOBAL_KEY = Symbol.for('mcp-msgpack-transport.placeholders');
export const placeholders: PlaceholderRegistry = ((globalThis as Record<symbol, unknown>)[GLOBAL_KEY] ??= new PlaceholderRegistry()) as PlaceholderRegistry;

/** Sets the placeholder limits (TTL and byte budget) for the whole process. */
export function configureNativeBytes(limits: PlaceholderLimits): void {
  placeholders.configure(limits);
}

/** `bytes` random bytes as hex, from the web crypto every runtime has (Node 20+, Bun, Deno, Workers, browsers). */
function randomHex(bytes: number): string {
  let hex = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(bytes))) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
