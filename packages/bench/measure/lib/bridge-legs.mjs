// What both bridge measurements need: a process's CPU time and a byte-counting proxy for the network leg.
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/** utime + stime of a process, in ms (Linux). */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** A TCP proxy on loopback that counts every byte both ways: the network leg as a real network would carry it. */
export function startCountingProxy(targetPort) {
  let total = 0;
  const sockets = new Set();
  const server = createServer((inbound) => {
    const outbound = connect(targetPort, '127.0.0.1');
    sockets.add(inbound).add(outbound);
    // As transparent as the loopback it stands on: no Nagle delay of its own on either side.
    inbound.setNoDelay(true);
    outbound.setNoDelay(true);
    inbound.on('data', (chunk) => (total += chunk.length));
    outbound.on('data', (chunk) => (total += chunk.length));
    inbound.pipe(outbound).on('error', () => {});
    outbound.pipe(inbound).on('error', () => {});
    const end = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('close', end).on('error', end);
    outbound.on('close', end).on('error', end);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        bytes: () => total,
        close: () => {
          for (const socket of sockets) socket.destroy();
          server.close();
        },
      }),
    );
  });
}
