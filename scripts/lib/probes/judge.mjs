// Holds each server's results to its list of expected failures (fixtures/probes/expected-failures.json), which
// may only shrink: a case failing that is not listed fails the run (a regression, or a promise one server breaks),
// and so does a listed case that passes ("remove it from the expected failures") or a listed case that no longer exists.

/** `list`: the entries for this server ({ caseId: why }), merged from its name and `name@runtime`. */
export function expectedFor(expectedFailures, name, runtime) {
  return { ...(expectedFailures[name] ?? {}), ...(runtime ? (expectedFailures[`${name}@${runtime}`] ?? {}) : {}) };
}

/** { ok, problems: [text], rows: [{ id, outcome: pass | expected-fail | FAIL | UNEXPECTED-PASS }] }. */
export function judge(results, expected) {
  const problems = [];
  const rows = [];
  const seen = new Set();
  for (const result of results) {
    seen.add(result.id);
    const listed = expected[result.id];
    if (result.pass && listed) {
      problems.push(`${result.id}: passes now: remove it from the expected failures (was: ${listed})`);
      rows.push({ id: result.id, outcome: 'UNEXPECTED-PASS' });
    } else if (!result.pass && !listed) {
      problems.push(`${result.id}: FAILS (${result.rule}): ${result.detail}`);
      rows.push({ id: result.id, outcome: 'FAIL' });
    } else rows.push({ id: result.id, outcome: result.pass ? 'pass' : 'expected-fail' });
  }
  for (const id of Object.keys(expected)) if (!seen.has(id)) problems.push(`${id}: listed as an expected failure, but there is no such case: remove it`);
  return { ok: problems.length === 0, problems, rows };
}
