// Preloaded into `bun test` by scripts/run-tests.mjs: records every skipped suite and test with its reason.
// Bun's node:test drops a skipped describe() without a trace (not in its output, not in its JUnit report) and
// reports a skipped test without its reason, so without this the Bun summary would count fewer skips than
// Node's for the same files and could not say why. Each skip is one JSON line in the file named by
// MCP_MSGPACK_SKIP_LOG: { kind: 'suite' | 'test', file, name, reason }.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative } from 'node:path';

const logFile = process.env.MCP_MSGPACK_SKIP_LOG;
const root = process.env.MCP_MSGPACK_TEST_ROOT ?? process.cwd();
const nodeTest = createRequire(import.meta.url)('node:test');

/** The compiled test file that made the call, from the stack. */
function callerFile() {
  for (const line of String(new Error().stack).split('\n')) {
    const match = /((?:\/|[A-Za-z]:\\)[^():]*\.test\.[cm]?js)/.exec(line);
    if (match) return relative(root, match[1]);
  }
  return '(unknown file)';
}

/** Wraps describe/it so that a call with a truthy `skip` option is written down before Bun sees it. */
function recording(kind, original) {
  function wrapped(...args) {
    const options = args.find((arg) => arg !== null && typeof arg === 'object');
    if (logFile && options?.skip) {
      const name = typeof args[0] === 'string' ? args[0] : '(unnamed)';
      const reason = typeof options.skip === 'string' ? options.skip : 'no reason given';
      appendFileSync(logFile, `${JSON.stringify({ kind, file: callerFile(), name, reason })}\n`);
    }
    return original.apply(this, args);
  }
  return Object.assign(wrapped, original);
}

for (const [name, kind] of [
  ['describe', 'suite'],
  ['suite', 'suite'],
  ['it', 'test'],
  ['test', 'test'],
]) {
  if (typeof nodeTest[name] === 'function') nodeTest[name] = recording(kind, nodeTest[name]);
}
