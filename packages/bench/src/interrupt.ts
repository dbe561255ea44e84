// What must not outlive an interrupted run (Ctrl-C, SIGTERM): temporary media files, server children that
// would not notice their parent is gone. Each is registered while it exists; the command line runs them all,
// synchronously, before it prints what was measured and exits.
const cleanups = new Set<() => void>();

/** Registers a synchronous cleanup; returns the function that unregisters it (call it once cleaned up). */
export function onInterrupt(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Runs every registered cleanup once, each even if another throws. */
export function runInterruptCleanups(): void {
  for (const cleanup of [...cleanups]) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // best effort: the process is about to exit
    }
  }
}
