import type { ChildProcess } from 'node:child_process';
import { StdioMsgpackClientTransport, type JSONRPCMessage } from 'mcp-msgpack-transport';
import type { ChildProcesses } from './child-processes.js';
import { oneLine, type Log } from '../log.js';

/** The stdio server the reverse mode fronts: the command line after `--`. */
export interface ChildCommand {
  command: string;
  args: string[];
  /** Variables of the bridge's environment the child does not get (the clients' tokens). */
  hiddenEnv?: readonly string[];
}

/**
 * Starts the user's stdio server with the bridge's own environment (strings only: it is their server and
 * expects their variables) and its stderr passed through, in a process group of its own and counted
 * against the cap (child-processes.ts); its errors go to the bridge's log.
 */
export async function startStdioChild(
  command: ChildCommand,
  log: Log,
  children: ChildProcesses,
  on: { message: (message: JSONRPCMessage) => void; exit: () => void; spawned?: (process: ChildProcess) => void },
): Promise<StdioMsgpackClientTransport> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !command.hiddenEnv?.includes(name)) env[name] = value;
  // JSON lines only, no wire offer and no native bytes: the child is any stdio JSON server. This transport
  // rather than the SDK's for its line reader, whose cost stays linear in a line's length (the SDK's re-copies
  // and re-scans its whole buffer per chunk, which a 7 MiB line of base64 media makes expensive).
  const child = new StdioMsgpackClientTransport({
    command: command.command,
    args: command.args,
    env,
    stderr: 'inherit',
    wire: 'json',
    nativeBytes: false,
    spawn: (file, argv, options) => {
      const process = children.spawn(file, argv, options);
      on.spawned?.(process);
      return process;
    },
  });
  child.onmessage = on.message;
  child.onerror = (error) => log(`stdio server: ${oneLine(error)}`);
  child.onclose = on.exit;
  await child.start();
  return child;
}
