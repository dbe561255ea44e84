import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from './options.js';
import type { CallScenario } from './runner/rounds.js';
import type { VariantSpec } from './runner/variant.js';

/** The suffix of a variant's id when its server is the baseline build's: `msgpack@baseline`. */
export const BASELINE_SUFFIX = '@baseline';

/** Where a checkout (or the bench package of one) keeps its built benchmark servers, in the order tried. */
const SERVER_DIRS = ['packages/bench/dist/esm/servers', 'dist/esm/servers'];

/**
 * The built benchmark servers (servers/entry.js) of another checkout or build of this repository: DIR is
 * the checkout's root or its packages/bench. Said in one line, before measuring, when there are none.
 */
export function baselineServers(dir: string): string {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`--baseline ${dir}: no such folder`);
  for (const sub of SERVER_DIRS) {
    const servers = join(root, sub);
    if (existsSync(join(servers, 'entry.js'))) return servers;
  }
  throw new UsageError(`--baseline ${dir}: no built benchmark server there (looked for ${SERVER_DIRS.map((s) => `${s}/entry.js`).join(' and ')}); run npm ci && npm run build in it`);
}

/**
 * A scenario as an A/B run: every variant that runs this repository's server code (our transports; not the
 * SDK's own server, the official filesystem server or the raw pipe, which the baseline cannot change) twice,
 * once on this checkout's server and once on the baseline's, with the same client (this checkout's).
 * The rounds alternate all of them (A B ... then reversed), so drift hits both builds alike; each variant
 * is compared with its own baseline, round by round, on the bench's usual ratio and verdict rules.
 */
export function withBaseline(scenario: CallScenario, servers: string): CallScenario {
  const ours = scenario.variants.filter((v) => v.stack === 'ours');
  const variants: VariantSpec[] = ours.flatMap((v) => [v, { ...v, id: v.id + BASELINE_SUFFIX, label: `${v.label} [baseline]`, build: servers }]);
  const comparisons = ours.map((v): [string, string] => [v.id, v.id + BASELINE_SUFFIX]);
  const { bestOf: _bestOf, ...rest } = scenario;
  return { ...rest, variants, comparisons };
}
