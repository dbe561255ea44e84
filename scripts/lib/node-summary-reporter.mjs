// A node:test reporter (`node --test --test-reporter=THIS`) that prints only the summary of test-summary.mjs;
// scripts/run-tests.mjs sends the spec reporter's full output to the log file next to it. The log file's
// path and the start time come from the environment run-tests.mjs sets.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { formatSummary, ownFrame } from './test-summary.mjs';

const root = process.env.MCP_MSGPACK_TEST_ROOT ?? process.cwd();
const logFile = process.env.MCP_MSGPACK_TEST_LOG ?? "(the spec reporter's destination)";
const started = Number(process.env.MCP_MSGPACK_TEST_STARTED ?? Date.now());
// run-tests.mjs appends the summary to the log from this file, so the log ends as the terminal does.
const summaryFile = process.env.MCP_MSGPACK_TEST_SUMMARY;
const live = process.stdout.isTTY === true;

export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  const skips = [];
  const files = new Set();
  // The names of the tests enclosing the one that runs now, by nesting level, to say `suite > test`.
  const enclosing = [];
  // What each file wrote to stderr: a file that fails outside its tests (while loading) says why only there.
  const stderrByFile = new Map();
  for await (const event of source) {
    const data = event.data ?? {};
    if (data.file) files.add(data.file);
    if (event.type === 'test:start') enclosing.splice(data.nesting, Infinity, data.name);
    if (event.type === 'test:stderr' && data.file) stderrByFile.set(data.file, (stderrByFile.get(data.file) ?? '') + data.message);
    // A skipped suite (describe with `skip`) registers none of its tests: it counts as one skipped.
    if (event.type === 'test:pass' && (data.skip !== undefined || data.todo !== undefined)) {
      skipped++;
      const why = data.skip ?? data.todo;
      const reason = typeof why === 'string' ? why : data.skip === undefined ? 'todo' : 'no reason given';
      skips.push({ kind: isSuite(data) ? 'suite' : 'test', file: data.file ? relative(root, data.file) : '(no file)', name: data.name, reason });
    } else if (event.type === 'test:pass' && !isSuite(data)) {
      passed++;
    } else if (event.type === 'test:fail' && !isSuite(data)) {
      const error = data.details?.error;
      // A test whose subtests failed, or a file whose tests failed, adds nothing: its subtests are counted.
      if (error?.failureType === 'subtestsFailed') continue;
      failed++;
      const file = data.file ? relative(root, data.file) : '(no file)';
      if (data.file && data.name === data.file) {
        // The file itself failed, not one of its tests: its stderr's end says why.
        const stderr = (stderrByFile.get(data.file) ?? '')
          .trimEnd()
          .split('\n')
          .filter((line) => !/^\s+at\s/.test(line))
          .slice(-8)
          .join('\n');
        failures.push({ file, name: '(outside any test: the file failed)', message: stderr || describe(error).message });
      } else {
        failures.push({ file, name: [...enclosing.slice(0, data.nesting), data.name].join(' > '), ...describe(error) });
      }
    } else {
      continue;
    }
    if (live) yield `\r\x1b[K${passed} passed, ${failed} failed, ${skipped} skipped (${files.size} files so far)`;
  }
  if (live) yield '\r\x1b[K';
  const seconds = (Date.now() - started) / 1000;
  const summary = formatSummary('node', { passed, failed, skipped, failures, skips, files: files.size, seconds, logFile });
  if (summaryFile) writeFileSync(summaryFile, summary);
  yield summary;
}

function isSuite(data) {
  return data.details?.type === 'suite';
}

/** The assertion's own message: node wraps a test's error in ERR_TEST_FAILURE with the original as cause. */
function describe(error) {
  if (!error) return { message: '(no error recorded)' };
  const cause = error.code === 'ERR_TEST_FAILURE' && error.cause ? error.cause : error;
  if (typeof cause !== 'object') return { message: String(cause) };
  const name = cause.name && cause.name !== 'Error' ? `${cause.name}: ` : '';
  const message = cause.message ?? String(cause);
  return { message: `${name}${message}`, where: ownFrame(cause.stack, root) };
}
