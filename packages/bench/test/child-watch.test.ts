// A child process the benchmark did not ask to stop must never die silently (runner/child-watch.ts): until
// this was built, a server that aborted at teardown printed a native stack trace and the run still reported
// its verdicts and exited 0. Real children here, started as the benchmark starts its servers.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import {
  childExitSection,
  evaluateTargets,
  parseOptions,
  recordChildExits,
  renderHtml,
  renderText,
  runInThisRuntime,
  SilentProgress,
  takeChildExits,
  watchChild,
  type BenchResult,
  type RuntimeRun,
} from 'mcp-msgpack-bench';
import { resultOf } from './fixtures/result.js';

const CLI = fileURLToPath(new URL('../../bin/mcp-msgpack-bench.js', import.meta.url));
/** The built benchmark server, as a --baseline build holds it. */
const ENTRY = new URL('../../dist/esm/servers/entry.js', import.meta.url);

/**
 * A --baseline build whose servers are this build's, except that they abort when stopped (the bench's
 * SIGTERM at teardown), as the zlib assertion of d0f87d1 aborted them: a real crash on the real spawn path.
 */
function abortingBuild(): string {
  const root = mkdtempSync(join(tmpdir(), 'bench-aborting-'));
  const servers = join(root, 'dist', 'esm', 'servers');
  mkdirSync(servers, { recursive: true });
  const script = [
    `await import(${JSON.stringify(ENTRY.href)});`,
    "process.removeAllListeners('SIGTERM');",
    "process.on('SIGTERM', () => { process.stderr.write('aborting build: stopped, aborting\\n'); process.abort(); });",
  ].join('\n');
  writeFileSync(join(servers, 'entry.js'), script);
  // An ES module (its top-level await) by its package.json, as the real build's is: Node before 20.19 and 22.7
  // does not tell one by its syntax.
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  return root;
}

/** A child that runs `then` (JavaScript), then says it is ready; its stderr piped as a server's is. */
function child(then: string) {
  // Ready a turn later: a signal handler `then` adds is not yet in force while its own turn runs.
  const script = `${then}; setTimeout(() => process.stdout.write('ready\\n'), 50);`;
  const proc = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  const watched = watchChild(proc, { role: 'server', runtime: process.execPath, scenario: 'test-scenario', variant: 'test variant' }, { stderr: proc.stderr, echo: false });
  const ready = new Promise<void>((resolve) => proc.stdout!.once('data', () => resolve()));
  return { proc, watched, ready };
}

/** The pipe may deliver the last stderr after the exit: wait for it to end. */
const drained = (proc: ReturnType<typeof child>['proc']) => new Promise<void>((resolve) => (proc.stderr!.readableEnded ? resolve() : proc.stderr!.once('end', resolve)));

describe('child-watch', { timeout: 120_000 }, () => {
  it('a child that exits 3 after ready is recorded, with its code and the tail of its stderr', async () => {
    takeChildExits();
    const { proc, watched } = child(`console.error('line one'); console.error('about to fail'); setTimeout(() => process.exit(3), 100);`);
    await watched.exited;
    await drained(proc);
    const [exit, ...more] = takeChildExits();
    assert.equal(more.length, 0);
    assert.ok(exit);
    assert.deepEqual([exit.code, exit.signal, exit.when, exit.pid, exit.scenario, exit.variant, exit.role], [3, null, 'unasked', proc.pid, 'test-scenario', 'test variant', 'server']);
    assert.deepEqual(exit.stderrTail.slice(-2), ['line one', 'about to fail']);
    const text = childExitSection({ childExits: [exit] })!;
    assert.match(text, new RegExp(`CHILD DIED: test-scenario \\[\\w+\\] variant test variant: server pid ${proc.pid} exited with code 3 before the benchmark asked it to stop`));
    assert.match(text, /stderr: about to fail/);
  });

  it('a child that aborts is recorded with its signal', async () => {
    takeChildExits();
    const { watched } = child(`setTimeout(() => process.abort(), 100);`);
    await watched.exited;
    const [exit] = takeChildExits();
    assert.equal(exit?.signal, 'SIGABRT');
    assert.equal(exit?.code, null);
  });

  it('a child that exits 0 unasked is not recorded (a clean end: a stdio server whose client dropped its pipe), one that exits 1 unasked is', async () => {
    takeChildExits();
    const clean = child(`setTimeout(() => process.exit(0), 100);`);
    const failed = child(`setTimeout(() => process.exit(1), 100);`);
    await Promise.all([clean.watched.exited, failed.watched.exited]);
    assert.deepEqual(
      takeChildExits().map((e) => [e.pid, e.code]),
      [[failed.watched.pid, 1]],
    );
  });

  it('a child the benchmark stops is not recorded: by its SIGTERM, by its SIGKILL, or exiting 0 from its handler', async () => {
    takeChildExits();
    const plain = child('setInterval(() => {}, 1000);');
    const handler = child(`process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);`);
    const stubborn = child(`process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);`);
    await Promise.all([plain.ready, handler.ready, stubborn.ready]);
    await Promise.all([plain.watched.stop(), handler.watched.stop(), stubborn.watched.stop('SIGTERM', 200)]);
    assert.equal(stubborn.proc.signalCode, 'SIGKILL');
    assert.deepEqual(takeChildExits(), []);
  });

  it('a child that aborts while the benchmark stops it is recorded: the stop did not end it', async () => {
    takeChildExits();
    const { ready, watched } = child(`process.on('SIGTERM', () => process.abort()); setInterval(() => {}, 1000);`);
    await ready;
    await watched.stop();
    const [exit] = takeChildExits();
    assert.deepEqual([exit?.signal, exit?.when], ['SIGABRT', 'while being stopped']);
  });

  it('the scenario a child served is marked untrusted, and its target is not MET whatever its ratio says', () => {
    const scenario = {
      name: 'object-50KB/stdio',
      venue: 'object',
      title: '',
      runtime: 'node',
      transport: 'stdio',
      clients: 1,
      rounds: 4,
      callsPerRound: 40,
      warmupCalls: 0,
      variants: [],
      comparisons: [{ candidate: 'msgpack', baseline: 'json', metrics: { cpu: { ratio: { median: 0.5, min: 0.4, max: 0.6, rounds: 4 }, verdict: 'wins' as const } } }],
      notes: [],
    } as const;
    const id = 'object-cpu:object-50KB/stdio';
    assert.equal(resultOf([structuredClone(scenario) as never]).targets.find((t) => t.id === id)?.status, 'met');
    const run: RuntimeRun = { runtime: 'node', version: '', scenarios: [structuredClone(scenario) as never], skipped: [] };
    // A record as the watch makes it, moved into the run as the runner does after each scenario.
    const exit = { role: 'server', runtime: 'node', scenario: scenario.name, variant: 'MessagePack', pid: 42, code: null, signal: 'SIGABRT', when: 'unasked' as const, stderrTail: ['Assertion failed'] };
    recordChildExits(run, undefined, [exit]);
    assert.deepEqual(run.childExits, [exit]);
    assert.match(run.scenarios[0]!.untrusted ?? '', /pid 42.*killed by SIGABRT/);
    const result = { ...resultOf(run.scenarios), childExits: run.childExits };
    const target = evaluateTargets(result).find((t) => t.id === id)!;
    assert.deepEqual([target.status, target.untrusted], ['cannot judge', true]);
    assert.match(target.reason ?? '', /not trustworthy: a server child \(pid 42, MessagePack\) killed by SIGABRT/);
    const text = renderText({ ...result, targets: evaluateTargets(result) }, { details: true });
    assert.match(text, /CHILD DIED: object-50KB\/stdio \[node\] variant MessagePack: server pid 42 killed by SIGABRT/);
    assert.match(text, /stderr: Assertion failed/);
    assert.match(text, /NOT TRUSTWORTHY/);
    assert.match(text, /UNTRUSTED +Node, object-50KB\/stdio: MessagePack server CPU\/call/);
    assert.doesNotMatch(text, /^MET .*object-50KB/m);
    // The HTML report opens with the same headline, the death first; the scenario's heading says so too.
    const html = renderHtml({ ...result, targets: evaluateTargets(result) });
    assert.match(html, /CHILD DIED: object-50KB\/stdio \[node\] variant MessagePack: server pid 42 killed by SIGABRT/);
    assert.match(html, /object-50KB\/stdio \[node\] <span class="loses">\(NOT TRUSTWORTHY: a child died\)/);
  });

  it('a server that aborts at teardown, run by the real runner: recorded, its scenario untrusted', { timeout: 120_000 }, async () => {
    takeChildExits();
    const root = abortingBuild();
    try {
      const run = await runInThisRuntime(parseOptions(['--baseline', root, '--scenario', 'small-calls/http-1']), new SilentProgress(), { smoke: true });
      const exits = run.childExits ?? [];
      assert.ok(exits.length > 0, 'no child exit recorded');
      for (const exit of exits) {
        assert.deepEqual([exit.signal, exit.when, exit.scenario], ['SIGABRT', 'while being stopped', 'small-calls/http-1']);
        assert.match(exit.variant ?? '', /\[baseline\]/);
      }
      assert.ok(
        exits.some((e) => e.stderrTail.includes('aborting build: stopped, aborting')),
        JSON.stringify(exits),
      );
      // This build's own servers stopped cleanly: not one of them is recorded.
      assert.equal(exits.length, new Set(exits.map((e) => e.pid)).size);
      assert.match(run.scenarios[0]?.untrusted ?? '', /killed by SIGABRT while being stopped/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the CLI prints the death, writes it to --json, and exits 3', { timeout: 180_000 }, () => {
    const root = abortingBuild();
    try {
      const json = join(root, 'result.json');
      const result = spawnSync(process.execPath, [CLI, '--baseline', root, '--scenario', 'small-calls/http-1', '--json', json], { encoding: 'utf8', timeout: 170_000 });
      assert.equal(result.status, 3, result.stderr.slice(-2000));
      assert.match(result.stdout, /CHILD DIED: small-calls\/http-1 \[\w+\] variant .*\[baseline\]: server pid \d+ killed by SIGABRT while the benchmark stopped it/);
      assert.match(result.stdout, /stderr: aborting build: stopped, aborting/);
      assert.match(result.stdout, /died unasked \(above\): exit status 3/);
      const written = JSON.parse(readFileSync(json, 'utf8')) as BenchResult;
      assert.ok((written.childExits ?? []).every((e) => e.signal === 'SIGABRT') && written.childExits!.length > 0);
      assert.ok(written.scenarios.every((s) => s.untrusted));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
