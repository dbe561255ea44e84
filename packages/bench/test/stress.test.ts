// The stress drivers (packages/bench/stress) run end to end in their bounded quick mode, on the runtime
// running the tests, so that they cannot rot: hostile payloads over stdio and HTTP, the attack suite and a
// mixed load on one media server, the bridge under faults. It asserts that each part ran and the servers
// kept serving (run.mjs exits 1 otherwise), not any figure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const RUN = fileURLToPath(new URL('../../stress/run.mjs', import.meta.url));

describe('stress drivers, quick mode', { timeout: 400_000 }, () => {
  it('run, and the servers keep serving through every case', { timeout: 400_000 }, () => {
    const result = spawnSync(process.execPath, [RUN, '--quick'], { encoding: 'utf8', timeout: 360_000 });
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
    for (const part of ['hostile payloads over stdio', 'hostile payloads over HTTP', 'attack suite:', 'mixed load, 2 clients', 'reverse mode under faults', 'SIGTERM to the bridge']) {
      assert.ok(result.stdout.includes(part), `no "${part}" in:\n${result.stdout}`);
    }
    assert.match(result.stdout, /the server kept serving through every stress case\n$/);
  });
});
