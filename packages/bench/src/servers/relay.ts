#!/usr/bin/env node
/**
 * The HTTP venues' byte counter, in a process of its own: loopback relays (metrics/bytes.ts CountingProxy)
 * between the benchmark's clients and the servers, so that relaying every byte is charged neither to a
 * server's CPU nor to the client process's (whose CPU per call the benchmark reports too). One process
 * serves every HTTP session of a run: starting a process per session cost more than a scenario's rounds.
 *   relay.js [--target PORT]
 * Commands on stdin, one a line, each answered by one line on stdout, in order:
 *   open PORT   a relay to PORT: "OPENED <id> <port>" (clients connect to <port>)
 *   count ID    "<sent> <received>": bytes so far through relay ID, client to server and back
 *   close ID    "CLOSED <id>", once its connections are closed
 * With --target, relay 0 to PORT is opened first and announced as "RELAY_READY <port>", and "count" alone
 * counts it. Exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CountingProxy } from '../metrics/bytes.js';

const { values } = parseArgs({ options: { target: { type: 'string' } } });
const relays = new Map<number, CountingProxy>();
let nextId = 0;

function portOf(text: string | undefined): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`not a port: ${text}`);
  return port;
}

async function open(target: number): Promise<{ id: number; port: number }> {
  const proxy = new CountingProxy(target);
  const id = nextId++;
  relays.set(id, proxy);
  return { id, port: await proxy.listen() };
}

async function answer(line: string): Promise<string> {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === 'open') {
    const { id, port } = await open(portOf(argument));
    return `OPENED ${id} ${port}`;
  }
  const relay = relays.get(argument === undefined ? 0 : Number(argument));
  if (!relay) return `ERROR no relay ${argument}`;
  if (command === 'count') return `${relay.counter.sent} ${relay.counter.received}`;
  if (command === 'close') {
    relays.delete(Number(argument));
    await relay.close();
    return `CLOSED ${argument}`;
  }
  return `ERROR unknown command ${command}`;
}

if (values.target !== undefined) {
  let target: number;
  try {
    target = portOf(values.target);
  } catch {
    process.stderr.write('relay: --target PORT must be a port\n');
    process.exit(2);
  }
  process.stdout.write(`RELAY_READY ${(await open(target)).port}\n`);
} else {
  process.stdout.write('RELAY_READY\n');
}
// Answers go out in the order the commands came, whatever each one waits for.
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  queue = queue.then(async () => {
    const text = await answer(line).catch((error: Error) => `ERROR ${error.message}`);
    process.stdout.write(`${text}\n`);
  });
});
lines.on('close', () => void queue.then(() => Promise.all([...relays.values()].map((r) => r.close()))).then(() => process.exit(0)));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
