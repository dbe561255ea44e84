import type { Log } from '../log.js';
import type { ChildProcesses } from './child-processes.js';
import type { SessionRegistry } from './served-session.js';
import type { ChildCommand } from './stdio-child.js';

/** What every session of one `--serve` endpoint shares: the command, the children, the limits. */
export interface ServeContext {
  command: ChildCommand;
  log: Log;
  children: ChildProcesses;
  sessions: SessionRegistry;
  requestTimeoutMs: number;
  initTimeoutMs: number;
  maxHeldNotifications: number;
}
