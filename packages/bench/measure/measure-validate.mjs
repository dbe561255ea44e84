// Per-message cost of checkJsonRpcMessage vs the SDK's JSONRPCMessageSchema.parse, side by side in one run.
//   node packages/bench/measure/measure-validate.mjs        (or: bun packages/bench/measure/measure-validate.mjs)
// Build the transport package first. The mixes are the golden fixtures (fixtures/cases): "protocol" is the
// MCP messages (initialize, tools/list with schemas, tools/call, progress, errors, ...), "all" adds the
// edge-value fixtures. Both validators run on the same values, in alternating rounds; medians reported.
// Only fixtures both accept are timed (a refusal throws, which would time the error path): the ones either
// refuses are named and left out.
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { checkJsonRpcMessage } from 'mcp-msgpack-transport/wire';
import { loadFixtures } from '../../../fixtures/notation.mjs';

const ROUNDS = 15;
const TARGET_MS = 100; // per validator per round

const accepted = (f) => checkJsonRpcMessage(f.message) === undefined && JSONRPCMessageSchema.safeParse(f.message).success;
const loaded = loadFixtures();
const fixtures = loaded.filter(accepted);
const refused = loaded.filter((f) => !accepted(f)).map((f) => f.name);
if (refused.length > 0) console.log(`left out, refused by one of the two validators: ${refused.join(', ')}`);
const edge = /^(u?int-|str-|map-|array-|floats|bin|empty|unicode|key-order)/;
const mixes = {
  protocol: fixtures.filter((f) => !edge.test(f.name)).map((f) => f.message),
  all: fixtures.map((f) => f.message),
};

const validators = {
  checkJsonRpcMessage: (m) => {
    if (checkJsonRpcMessage(m) !== undefined) throw new Error('rejected');
  },
  'JSONRPCMessageSchema.parse': (m) => JSONRPCMessageSchema.parse(m),
};

/** Nanoseconds per message for `validate` over `mix`, repeated `passes` times. */
function time(validate, mix, passes) {
  const start = process.hrtime.bigint();
  for (let p = 0; p < passes; p++) for (let i = 0; i < mix.length; i++) validate(mix[i]);
  return Number(process.hrtime.bigint() - start) / (passes * mix.length);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runtime = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`;
console.log(`validation cost per message (${runtime}; median of ${ROUNDS} alternating rounds)`);
for (const [mixName, mix] of Object.entries(mixes)) {
  // Warm up both, and size a round to about TARGET_MS for the slower one.
  const passes = {};
  for (const [name, validate] of Object.entries(validators)) {
    for (let i = 0; i < 5; i++) time(validate, mix, 200);
    passes[name] = Math.max(1, Math.round((TARGET_MS * 1e6) / (time(validate, mix, 200) * mix.length)));
  }
  const samples = Object.fromEntries(Object.keys(validators).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.keys(validators) : Object.keys(validators).reverse();
    for (const name of order) samples[name].push(time(validators[name], mix, passes[name]));
  }
  const ours = median(samples.checkJsonRpcMessage);
  const zod = median(samples['JSONRPCMessageSchema.parse']);
  console.log(`  ${mixName} mix (${mix.length} messages):`);
  console.log(`    checkJsonRpcMessage          ${ours.toFixed(0).padStart(7)} ns/message`);
  console.log(`    JSONRPCMessageSchema.parse   ${zod.toFixed(0).padStart(7)} ns/message`);
  console.log(`    ratio ours/zod               ${(ours / zod).toFixed(3)}  (zod is ${(zod / ours).toFixed(1)}x the cost)`);
}
