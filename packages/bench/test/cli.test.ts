// The mcp-msgpack-bench command line: --version, unknown scenarios, and the summary's shape and width.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { evaluateTargets, officialStdioFailure, parseOptions, unknownScenarioFilters } from 'mcp-msgpack-bench';

const CLI = fileURLToPath(new URL('../../bin/mcp-msgpack-bench.js', import.meta.url));
const runCli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('mcp-msgpack-bench command line', { timeout: 120_000 }, () => {
  it('--version prints the package version', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const result = runCli(['--version']);
    assert.equal(result.status, 0);
    assert.equal(result.stdout, `mcp-msgpack-bench ${manifest.version}\n`);
  });

  it('an unknown --scenario is an error (exit 2) that lists the valid names, and measures nothing', () => {
    const result = runCli(['--scenario', 'small,nosuch']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^mcp-msgpack-bench: no scenario matches --scenario "nosuch" \(quick mode, stdio and http\)\./);
    for (const name of ['codec/golden', 'small-calls/stdio', 'object-1MB/http-1', 'media-5MiB/stdio']) assert.ok(result.stderr.includes(name), `${name} not listed`);
    assert.ok(!result.stderr.split('\n')[0]!.includes('"small"'), 'the known filter is not reported');
    for (const line of result.stderr.split('\n')) assert.ok(line.length <= 100, `over 100 columns: ${line}`);
    assert.equal(result.stdout, '');
    // A name of the full mode only is unknown in quick mode.
    assert.equal(runCli(['--scenario', 'text-log-1MB']).status, 2);
  });

  it('unknownScenarioFilters accepts venues and name prefixes, and nothing else', () => {
    const available = [
      { venue: 'small' as const, name: 'small-calls/stdio' },
      { venue: 'media' as const, name: 'media-5MiB/http-1' },
    ];
    assert.deepEqual(unknownScenarioFilters(['small', 'media-5MiB', 'media-5MiB/http-1', 'small-calls/stdio'], available), []);
    assert.deepEqual(unknownScenarioFilters(['object', 'media-5', 'nosuch', 'small-calls/http-1'], available), ['object', 'media-5', 'nosuch', 'small-calls/http-1']);
  });

  it('--details is an option, off by default', () => {
    assert.equal(parseOptions([]).details, false);
    assert.equal(parseOptions(['--details']).details, true);
  });

  it("the official server's failure on 5 MiB over stdio is explained, not shown as a parse error", () => {
    // base64 of 5 MiB is 6990508 characters; sent twice that is 13.3 MiB, over the SDK client's 10 MiB.
    assert.equal(officialStdioFailure(5 * 1024 * 1024), "the official server sends the base64 twice (content and structuredContent), 13.3 MiB on one line, over the SDK stdio client's 10.0 MiB line limit");
    assert.equal(officialStdioFailure(1024 * 1024), undefined);
  });
});

describe('mcp-msgpack-bench: what a user can get wrong is said in one line, before measuring', { timeout: 120_000 }, () => {
  const expectUsageError = (args: string[], message: RegExp) => {
    const started = Date.now();
    const result = runCli(args);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, message);
    assert.ok(!/\n\s+at /.test(result.stderr), `a stack trace: ${result.stderr}`);
    assert.equal(result.stdout, '', 'nothing was measured');
    assert.ok(Date.now() - started < 30_000, 'it measured before it failed');
  };

  it('--report or --json into a folder that does not exist', () => {
    expectUsageError(['--report', '/nonexistent-mcp-msgpack/x.html'], /^mcp-msgpack-bench: --report \/nonexistent-mcp-msgpack\/x\.html: the folder \/nonexistent-mcp-msgpack does not exist\n$/);
    expectUsageError(['--json', '/nonexistent-mcp-msgpack/x.json', '--scenario', 'small'], /--json .*does not exist/);
  });

  it('--json naming a folder', () => {
    expectUsageError(['--json', tmpdir()], /--json .*: that is a folder; give a file name/);
  });

  it('an unknown option or a bad --runtime', () => {
    expectUsageError(['--bogus'], /^mcp-msgpack-bench: Unknown option '--bogus'/);
    expectUsageError(['--runtime', 'deno'], /--runtime must be node or bun, not "deno"/);
  });
});

describe('mcp-msgpack-bench interrupted', { timeout: 120_000 }, () => {
  it('Ctrl-C removes its temporary files, prints what was measured so far and exits 130', async () => {
    // A temp folder of the test's own, so that only this run's files are looked for.
    const temp = mkdtempSync(join(tmpdir(), 'bench-interrupt-'));
    try {
      const child = spawn(process.execPath, [CLI, '--scenario', 'small-calls/stdio,media-1MiB/stdio'], { env: { ...process.env, TMPDIR: temp }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // Interrupt once the second scenario runs: the first is then measured, the media files exist.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the second scenario never started: ${stderr}`)), 90_000);
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          if (stderr.includes('scenario 2/2')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      assert.ok(
        readdirSync(temp).some((name) => name.startsWith('mcp-msgpack-bench-media-')),
        'no media folder to clean up',
      );
      child.kill('SIGINT');
      assert.equal(await exited, 130);
      assert.match(stdout, /INTERRUPTED after 1 finished scenarios/);
      assert.match(stdout, /^\s+small-calls\/stdio /m, 'the measured scenario is in the summary');
      assert.deepEqual(readdirSync(temp), [], 'temporary files left behind');
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});

describe('targets', () => {
  const comparison = (median: number, min: number, max: number, verdict: 'wins' | 'ties' | 'loses') => ({
    candidate: 'msgpack',
    baseline: 'json',
    metrics: { cpu: { ratio: { median, min, max, rounds: 4 }, verdict } },
  });
  const scenario = (runtime: string, c: ReturnType<typeof comparison>) =>
    ({ name: 'object-50KB/stdio', venue: 'object', title: '', runtime, transport: 'stdio', clients: 1, rounds: 4, callsPerRound: 1, warmupCalls: 0, variants: [], comparisons: [c], notes: [] }) as const;

  it('a "no more than the baseline" target follows the tie rule: a tie is neither met nor missed', () => {
    const of = (c: ReturnType<typeof comparison>) => evaluateTargets({ mode: 'full', durationMs: 1, scenarios: [scenario('node', c) as never] }).find((t) => t.id === 'object-cpu:object-50KB/stdio')!;
    assert.equal(of(comparison(1.01, 0.97, 1.05, 'ties')).status, 'tie');
    assert.equal(of(comparison(1.3, 0.9, 1.6, 'ties')).status, 'tie');
    assert.equal(of(comparison(1.08, 1.06, 1.1, 'loses')).status, 'missed');
    assert.equal(of(comparison(0.8, 0.7, 0.9, 'wins')).status, 'met');
  });

  it("Bun's targets are evaluated on Bun's scenarios", () => {
    const targets = evaluateTargets({ mode: 'full', durationMs: 1, scenarios: [scenario('bun', comparison(0.8, 0.7, 0.9, 'wins')) as never] });
    const object = targets.find((t) => t.id === 'bun:object-cpu:object-50KB/stdio');
    assert.equal(object?.status, 'met');
    assert.match(object!.description, /^Bun, /);
    assert.ok(!targets.some((t) => t.runtime === 'node'), 'Node targets in a Bun-only run');
  });
});
