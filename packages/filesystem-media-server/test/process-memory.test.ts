// What the CLI does for its own process's memory (src/process-memory.ts, README "Memory"): it re-executes
// itself with glibc's malloc settings where the runtime can (process.execve, Linux, not Bun) and the
// operator has not chosen them, and it can always get a full garbage collection for the idle release.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { GLIBC_MALLOC_SETTINGS, garbageCollectorForThisProcess, mallocReexecEnv } from 'mcp-filesystem-media-server';
import { LIMIT, OUR_CLI } from './helpers/client.js';
import { makeLayout, type Layout } from './helpers/layout.js';

let layout: Layout;
before(async () => {
  layout = await makeLayout();
});
after(async () => {
  await layout?.cleanup();
});

/** The CLI with --http on a free port and `env` as its whole environment; its environment as the kernel has it. */
async function environOfCli(env: NodeJS.ProcessEnv): Promise<{ environ: Record<string, string>; samePid: boolean }> {
  const child = spawn(process.execPath, [OUR_CLI, '--http', '127.0.0.1:0', layout.allowed], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no URL in time')), LIMIT);
      child.stdout!.once('data', () => {
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    // Listening, so past any re-execution: the pid the test spawned is the server's.
    const environ = Object.fromEntries(
      readFileSync(`/proc/${child.pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
    return { environ, samePid: child.exitCode === null };
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(MALLOC_|GLIBC_TUNABLES$|LD_PRELOAD$)/.test(name)));

describe('the CLI and its process memory', { timeout: LIMIT * 3 }, () => {
  it('mallocReexecEnv: the settings on Linux when the runtime can re-execute, never over the operator’s choice', () => {
    assert.deepEqual(mallocReexecEnv({ PATH: '/bin' }, 'linux', true), { PATH: '/bin', ...GLIBC_MALLOC_SETTINGS });
    assert.equal(mallocReexecEnv({ PATH: '/bin' }, 'linux', false), undefined);
    assert.equal(mallocReexecEnv({ PATH: '/bin' }, 'darwin', true), undefined);
    for (const chosen of ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'GLIBC_TUNABLES', 'LD_PRELOAD']) {
      assert.equal(mallocReexecEnv({ PATH: '/bin', [chosen]: '4' }, 'linux', true), undefined, chosen);
    }
  });

  it('the running server has the settings exactly when this runtime can re-execute itself (same pid)', { skip: process.platform !== 'linux' }, async () => {
    const canReexecute = typeof (process as { execve?: unknown }).execve === 'function' && process.versions.bun === undefined;
    const { environ, samePid } = await environOfCli(baseEnv);
    assert.ok(samePid);
    for (const [name, value] of Object.entries(GLIBC_MALLOC_SETTINGS)) assert.equal(environ[name], canReexecute ? value : undefined, name);
    // The operator's own choice is left as it is.
    const chosen = await environOfCli({ ...baseEnv, MALLOC_ARENA_MAX: '4' });
    assert.equal(chosen.environ.MALLOC_ARENA_MAX, '4');
    assert.equal(chosen.environ.MALLOC_MMAP_THRESHOLD_, undefined);
  });

  it('garbageCollectorForThisProcess: a collection is always at hand (Bun.gc, or V8 gc exposed for this process)', () => {
    const collector = garbageCollectorForThisProcess();
    if (process.versions.bun !== undefined) assert.equal(collector, true);
    else {
      assert.equal(typeof collector, 'function');
      (collector as () => void)();
    }
  });
});
