#!/usr/bin/env node
/**
 * The HTTP venues' byte counter, in a process of its own: a loopback relay (metrics/bytes.ts CountingProxy)
 * between the benchmark's clients and the server, so that relaying every byte is charged neither to the
 * server's CPU nor to the client process's (whose CPU per call the benchmark reports too).
 *   relay.js --target PORT
 * Prints "RELAY_READY <port>" on stdout once listening; each line "count" on stdin is answered with
 * "<sent> <received>" (bytes so far, client to server and back). Exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CountingProxy } from '../metrics/bytes.js';

const { values } = parseArgs({ options: { target: { type: 'string' } } });
const target = Number(values.target);
if (!Number.isInteger(target) || target <= 0) {
  process.stderr.write('relay: --target PORT is required\n');
  process.exit(2);
}

const proxy = new CountingProxy(target);
const port = await proxy.listen();
process.stdout.write(`RELAY_READY ${port}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'count') process.stdout.write(`${proxy.counter.sent} ${proxy.counter.received}\n`);
});
lines.on('close', () => void proxy.close().then(() => process.exit(0)));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
