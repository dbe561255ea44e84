/** The bridge's diagnostics: one line each, on stderr (stdout belongs to the host's JSON-RPC stream). */
export type Log = (line: string) => void;

export const stderrLog: Log = (line) => void process.stderr.write(`mcp-msgpack-bridge: ${line}\n`);

/** An error's message on one line, with the cause a fetch failure hides in `cause` (ECONNREFUSED & co.). */
export function oneLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error).replace(/\s+/g, ' ');
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error && cause.message && !error.message.includes(cause.message) ? `: ${cause.message}` : '';
  return `${error.message}${detail}`.replace(/\s+/g, ' ');
}
