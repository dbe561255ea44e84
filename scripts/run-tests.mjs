// Runs every package's compiled tests (packages/*/build/test/**/*.test.js) on one runtime:
//   node scripts/run-tests.mjs node|bun [filter]
// The same files run on both: they use node:test, which bun's test runner also implements.
// Prints one summary per runtime (failures first, with file and assertion; then each skipped suite and test
// with its reason) and ends with the line `N passed, N failed, N skipped`; the runner's full output is in
// .cache/test-logs/<runtime>.log, which ends with the same summary. Both runtimes count a skipped suite as one.
import { spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { readBunJunit, readBunUnhandledErrors } from './lib/bun-junit.mjs';
import { formatSummary } from './lib/test-summary.mjs';

const runtime = process.argv[2];
const filter = process.argv[3];
if (runtime !== 'node' && runtime !== 'bun') {
  console.error('usage: node scripts/run-tests.mjs node|bun [filter]');
  process.exit(2);
}

const root = new URL('..', import.meta.url).pathname;
const files = [];
for (const pkg of readdirSync(join(root, 'packages'))) {
  const dir = join(root, 'packages', pkg, 'build', 'test');
  if (existsSync(dir)) collect(dir);
}
function collect(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path);
    else if (name.endsWith('.test.js') && (!filter || path.includes(filter))) files.push(relative(root, path));
  }
}
files.sort();
if (files.length === 0) {
  console.error('no compiled tests found: run `npm run build` first');
  process.exit(1);
}

// The full output goes to a log file; the terminal gets one summary (scripts/lib/test-summary.mjs).
const logDir = join(root, '.cache', 'test-logs');
mkdirSync(logDir, { recursive: true });
// MCP_MSGPACK_TEST_LOG_NAME names the log instead (scripts/test-node-versions.mjs: one log per Node version).
const logName = process.env.MCP_MSGPACK_TEST_LOG_NAME || runtime;
const logFile = join(logDir, `${logName}.log`);
const started = Date.now();
console.log(`${runtime}: running ${files.length} test files (full log: ${relative(root, logFile)})`);
process.exit(runtime === 'node' ? runNode() : runBun());

function runNode() {
  const reporter = join(root, 'scripts', 'lib', 'node-summary-reporter.mjs');
  const args = ['--test', '--test-concurrency=1'];
  args.push('--test-reporter=spec', `--test-reporter-destination=${logFile}`, `--test-reporter=${reporter}`, '--test-reporter-destination=stdout');
  const summaryFile = join(logDir, `${logName}-summary.txt`);
  rmSync(summaryFile, { force: true });
  const env = {
    ...process.env,
    MCP_MSGPACK_TEST_ROOT: root,
    MCP_MSGPACK_TEST_LOG: relative(root, logFile),
    MCP_MSGPACK_TEST_STARTED: String(started),
    MCP_MSGPACK_TEST_SUMMARY: summaryFile,
  };
  const result = spawnSync(process.execPath, [...args, ...files], { cwd: root, stdio: 'inherit', env });
  if (existsSync(summaryFile)) appendSummaryToLog(readFileSync(summaryFile, 'utf8'));
  return result.status ?? 1;
}

/** The log ends with what the terminal showed, after the runner's own tallies (which count skips differently). */
function appendSummaryToLog(summary) {
  appendFileSync(logFile, `\n# The summary run-tests.mjs printed (a skipped suite counts as one skip here):\n${summary}`);
}

function runBun() {
  const require = createRequire(import.meta.url);
  const bunDir = require.resolve('bun/package.json').replace(/package\.json$/, '');
  const bun = join(bunDir, 'bin', 'bun.exe');
  // The npm package ships a placeholder that its postinstall replaces; run that step if it was skipped.
  if (spawnSync(bun, ['--version']).status !== 0) spawnSync(process.execPath, ['install.js'], { cwd: bunDir, stdio: 'inherit' });
  const junitFile = join(logDir, 'bun-junit.xml');
  const skipLog = join(logDir, 'bun-skips.jsonl');
  rmSync(junitFile, { force: true });
  rmSync(skipLog, { force: true });
  const log = openSync(logFile, 'w');
  const preload = join(root, 'scripts', 'lib', 'bun-skip-recorder.mjs');
  const args = ['test', '--timeout', '120000', '--preload', preload, '--reporter=junit', `--reporter-outfile=${junitFile}`, ...files.map((f) => './' + f)];
  const env = { ...process.env, MCP_MSGPACK_TEST_ROOT: root, MCP_MSGPACK_SKIP_LOG: skipLog };
  const result = spawnSync(bun, args, { cwd: root, stdio: ['ignore', log, log], env });
  closeSync(log);
  const status = result.status ?? 1;
  const counts = existsSync(junitFile) ? readBunJunit(readFileSync(junitFile, 'utf8'), root) : { passed: 0, failed: 0, skipped: 0, failures: [] };
  // Bun's report has skipped tests without their reason and no skipped suites at all: the preload wrote both.
  const skips = existsSync(skipLog)
    ? readFileSync(skipLog, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  const skippedSuites = skips.filter((skip) => skip.kind === 'suite').length;
  const unexplainedSkips = Math.max(0, counts.skipped - (skips.length - skippedSuites));
  counts.skipped += skippedSuites;
  counts.failures.push(...readBunUnhandledErrors(readFileSync(logFile, 'utf8')));
  counts.failed = counts.failures.length;
  let problem;
  // An error outside any test (a file that fails to load, an unhandled rejection between tests) fails the run
  // without a failed test case: say so, with the end of the log, rather than print "0 failed".
  if (status !== 0 && counts.failed === 0) {
    const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
    problem = `bun test exited with ${status ?? result.signal} without a failed test in its report; the end of the log:\n${tail}`;
  }
  const failed = counts.failed + (problem ? 1 : 0);
  const seconds = (Date.now() - started) / 1000;
  const summary = formatSummary('bun', { ...counts, skips, unexplainedSkips, failed, files: files.length, seconds, logFile: relative(root, logFile), problem });
  appendSummaryToLog(summary);
  process.stdout.write(summary);
  return status === 0 && failed === 0 ? 0 : 1;
}
