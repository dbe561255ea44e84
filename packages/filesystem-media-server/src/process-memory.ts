// What the CLI does for the memory of its own process (README, "Memory"). Never done by the library: a
// collection and the allocator's settings are process-wide, and this process is the CLI's.
import process from 'node:process';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * glibc malloc settings (read by glibc at process start, ignored by other C libraries): blocks of 16 KiB and
 * more get mappings of their own, unmapped when freed (glibc otherwise raises that threshold up to 32 MiB
 * after the first large free, and the Buffers of a burst then fragment its heap for good; at 64 KiB the
 * smaller ones still did), free heap top past 64 KiB is returned, and at most 2 arenas. Past 65,536 such
 * mappings at once (glibc's M_MMAP_MAX) blocks go to the heap again. Measured in the transport's README
 * ("Memory when idle") with the command that did it, the CPU a call included.
 */
export const GLIBC_MALLOC_SETTINGS: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '16384',
  MALLOC_TRIM_THRESHOLD_: '65536',
  MALLOC_ARENA_MAX: '2',
};

/** Variables by which an operator has chosen the allocator's settings already (then left as they are). */
const OPERATOR_CHOICE = /^(MALLOC_[A-Z_]+_?|GLIBC_TUNABLES|LD_PRELOAD)$/;

/**
 * The environment to re-execute with (GLIBC_MALLOC_SETTINGS added), or undefined to leave the process as
 * it is: not Linux, a runtime that cannot re-execute itself in place (no process.execve: Node before 22.15
 * and 23.0-23.10, where the variables are for the operator to set; Bun, whose allocator is not glibc's),
 * or an environment where the operator chose the allocator's settings already (any MALLOC_* variable,
 * GLIBC_TUNABLES or LD_PRELOAD), which also keeps the re-executed process from doing it again.
 */
export function mallocReexecEnv(env: NodeJS.ProcessEnv, platform: string, canReexecute: boolean): NodeJS.ProcessEnv | undefined {
  if (platform !== 'linux' || !canReexecute) return undefined;
  if (Object.keys(env).some((name) => OPERATOR_CHOICE.test(name))) return undefined;
  return { ...env, ...GLIBC_MALLOC_SETTINGS };
}

/**
 * Re-executes this process (execve: same pid, arguments and open stdio) with glibc's malloc settings when
 * mallocReexecEnv says so; returns only when it does not.
 */
export function reexecWithMallocSettings(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  const canReexecute = typeof execve === 'function' && process.versions.bun === undefined;
  const env = mallocReexecEnv(process.env, process.platform, canReexecute);
  if (env) execve!(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], env);
}

/**
 * A full garbage collection for this process, for McpHttpHandler's idleRelease: Bun's (`true`: the
 * handler asks the runtime), the `gc` global if Node was started with --expose-gc, or else V8's `gc`
 * exposed now: the flag set at run time is seen by contexts made after it, and a new context hands the
 * function over. The flag changes nothing else (it only adds that function).
 */
export function garbageCollectorForThisProcess(): true | (() => void) {
  if (process.versions.bun !== undefined) return true;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}
