/**
 * Bytes lent to a transport, with the way to give them back to their owner (a NativeBytesPool) once the
 * transport is done with them: written to the socket or pipe (the kernel holds its own copy then), or
 * encoded as base64. Keyed by the very Uint8Array the owner handed out, which the native-bytes path keeps
 * from the handler's result to the writer's last write.
 *
 * Bytes never given back (a result that was not sent, a reply cut short, a runtime whose writes report no
 * completion) are simply collected as garbage: lending only ever saves work, it is never needed for
 * correctness.
 */
// Module-level, not on globalThis (where it was, to be shared by the ESM and CommonJS builds if both load):
// bytes lent by a pool of one build and written by a transport of the other are simply not given back, which
// costs that pool a reuse and nothing else (see above), so a process-global map buys nothing worth its
// hidden state.
const owners = new WeakMap<Uint8Array, () => void>();

export function lendBytes(bytes: Uint8Array, giveBack: () => void): void {
  owners.set(bytes, giveBack);
}

/** Gives lent bytes back (once); anything else is ignored. */
export function giveBack(bytes: Uint8Array): void {
  const owner = owners.get(bytes);
  if (owner === undefined) return;
  owners.delete(bytes);
  owner();
}

export function giveBackAll(pieces: readonly Uint8Array[]): void {
  for (const piece of pieces) giveBack(piece);
}

/**
 * Whether bytes written to `stream` have been copied out by the time its write callback runs: true for a
 * Node stream on an OS handle (a socket, pipe or TTY: the kernel took the bytes). An in-process stream (a
 * PassThrough pair, a test double) may still hold the very buffer for its reader, and Bun's sinks do not
 * document it, so lent bytes are never given back through those: they are garbage-collected instead.
 */
export function writesCopyOut(stream: unknown): boolean {
  return (stream as { _handle?: unknown } | null | undefined)?._handle != null;
}

/**
 * A write callback that gives `bytes` back when the write succeeded, or undefined for bytes not lent or a
 * stream whose writes may not have copied them out (`copiesOut`: writesCopyOut of the destination).
 */
export function giveBackWhenWritten(bytes: Uint8Array, copiesOut: boolean): ((error?: Error | null) => void) | undefined {
  if (!copiesOut || !owners.has(bytes)) return undefined;
  return (error) => {
    if (!error) giveBack(bytes);
  };
}
