// The mcp-msgpack-bench command line: --version, unknown scenarios, and the summary's shape and width.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { officialStdioFailure, parseOptions, unknownScenarioFilters } from 'mcp-msgpack-bench';

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
    assert.equal(
      officialStdioFailure(5 * 1024 * 1024),
      "the official server sends the base64 twice (content and structuredContent), 13.3 MiB on one line, over the SDK stdio client's 10.0 MiB line limit",
    );
    assert.equal(officialStdioFailure(1024 * 1024), undefined);
  });
});
