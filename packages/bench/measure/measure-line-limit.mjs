// What the stdio server's JSON line limit (maxJsonLineBytes) costs: a 5 MiB image answer (a 7 MB JSON line)
// written by StdioMsgpackServerTransport to a pipe another process reads, with the limit (the default) and
// without it (maxJsonLineBytes: Infinity), interleaved round by round; CPU of this process per answer.
//   node packages/bench/measure/measure-line-limit.mjs [rounds]    (or with bun)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { StdioMsgpackServerTransport } from 'mcp-msgpack-transport';
const data = randomBytes(5 * 1024 * 1024).toString('base64');
const rounds = Number(process.argv[2] ?? 15);
const sink = spawn('sh', ['-c', 'cat > /dev/null'], { stdio: ['pipe', 'ignore', 'inherit'] });
const make = (limit) => {
  const input = new PassThrough();
  const t = new StdioMsgpackServerTransport(input, sink.stdin, { wire: 'json', nativeBytes: false, ...(limit ? {} : { maxJsonLineBytes: Infinity }) });
  t.start();
  return { t, input };
};
const variants = { limit: make(true), none: make(false) };
const times = { limit: [], none: [] };
let id = 0;
for (let r = 0; r < rounds; r++) {
  for (const name of r % 2 ? ['limit', 'none'] : ['none', 'limit']) {
    const { t, input } = variants[name];
    const rid = ++id;
    const got = new Promise((resolve) => (t.onmessage = resolve));
    input.write(`{"jsonrpc":"2.0","id":${rid},"method":"tools/call","params":{"name":"x"}}\n`);
    await got;
    const cpu = process.cpuUsage();
    await t.send({ jsonrpc: '2.0', id: rid, result: { content: [{ type: 'image', data, mimeType: 'image/png' }] } });
    const used = process.cpuUsage(cpu);
    times[name].push((used.user + used.system) / 1000);
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(`CPU per 7 MB answer, median of ${rounds}: limit ${med(times.limit).toFixed(1)} ms, none ${med(times.none).toFixed(1)} ms, ratio ${(med(times.limit) / med(times.none)).toFixed(2)}x`);
sink.stdin.end();
process.exit(0);
