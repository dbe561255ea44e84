/** How often the bridge looks whether the process that started it is still there. */
const PARENT_POLL_MS = 1000;

/**
 * Calls `gone` once when the process that started the bridge has exited (it is then re-parented: its
 * parent id changes). `npx mcp-msgpack-bridge --serve` is npx's child: a SIGTERM to npx alone ends npx and
 * nothing else, which would leave the bridge and its children serving with nobody to stop them.
 */
export function watchParent(gone: () => void): void {
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, PARENT_POLL_MS);
  timer.unref();
}
