// Runs the whole probe set against one server: its stdio cases or its HTTP cases and floods.
import { loadCorpus } from './corpus.mjs';
import { runFlood } from './flood.mjs';
import { runHttpCases } from './http.mjs';
import { expectedFor, judge } from './judge.mjs';
import { makeServedDirectory, startHttpServer, stdioCommand } from './servers.mjs';
import { runStdioCases } from './stdio.mjs';

export { SERVERS, available } from './servers.mjs';

/**
 * options: runtime (the TS server's executable; default this process's), runtimeName (`node`/`bun`, for
 * `name@runtime` expected failures), flood ({ idle, partialHeaders } overriding the corpus's counts), only (a case id substring).
 * Resolves with { name, results, verdict (judge.mjs), ms }.
 */
export async function runProbes(name, options = {}) {
  const corpus = loadCorpus();
  const served = makeServedDirectory();
  const started = performance.now();
  const pick = (cases) => (options.only ? cases.filter((c) => c.id.includes(options.only)) : cases);
  let results = [];
  try {
    if (name.endsWith('-stdio')) {
      results = await runStdioCases(stdioCommand(name, served.dir, options.runtime), pick(corpus.stdio), { dir: served.dir });
    } else {
      const server = await startHttpServer(name, served.dir, options.runtime);
      try {
        const vars = { dir: served.dir, port: server.url.port };
        results = await runHttpCases(server.url, pick(corpus.http), vars);
        for (const flood of pick(corpus.floods)) results.push(await runFlood(server.url, flood, vars, options.flood));
      } finally {
        await server.stop();
      }
      for (const configured of corpus.configured) {
        const cases = pick(configured.cases);
        if (cases.length === 0) continue;
        const other = await startHttpServer(name, served.dir, options.runtime, configured.options);
        try {
          results.push(...(await runHttpCases(other.url, cases, { dir: served.dir, port: other.url.port })));
        } finally {
          await other.stop();
        }
      }
    }
  } finally {
    served.remove();
  }
  let expected = expectedFor(corpus.expectedFailures, name, options.runtimeName);
  if (options.only) expected = Object.fromEntries(Object.entries(expected).filter(([id]) => id.includes(options.only)));
  return { name, results, verdict: judge(results, expected), ms: Math.round(performance.now() - started) };
}
