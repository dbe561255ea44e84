import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { JSONRPCMessage } from 'mcp-msgpack-transport';
import { oneLine, type Log } from '../log.js';

/** The stdio server the reverse mode fronts: the command line after `--`. */
export interface ChildCommand {
  command: string;
  args: string[];
}

/**
 * Starts the user's stdio server with the bridge's own environment (strings only: it is their server and
 * expects their variables) and its stderr passed through; its errors go to the bridge's log.
 */
export async function startStdioChild(
  command: ChildCommand,
  log: Log,
  on: { message: (message: JSONRPCMessage) => void; exit: () => void },
): Promise<StdioClientTransport> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  const child = new StdioClientTransport({ command: command.command, args: command.args, env, stderr: 'inherit' });
  child.onmessage = on.message;
  child.onerror = (error) => log(`stdio server: ${oneLine(error)}`);
  child.onclose = on.exit;
  await child.start();
  return child;
}
