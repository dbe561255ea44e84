// The benchmark's metric collection, checked against known quantities: CPU burnt by a child, memory a
// child touches, bytes written through a pipe and a TCP relay. Generous tolerances, no timing assertions.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ByteCounter, CountingProxy, countingSpawn, readProcessCpuNs, readRss, resetPeakRss, startRelayProcess } from 'mcp-msgpack-bench';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.js`, import.meta.url));
const linux = process.platform === 'linux';

/** Resolves with the next line the child writes that starts with `prefix`. */
function nextLine(child: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n').find((l) => l.startsWith(prefix));
      if (line !== undefined) {
        child.stdout!.off('data', onData);
        resolve(line);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before "${prefix}"`)));
  });
}

describe('server CPU time from /proc', { skip: !linux && 'needs Linux /proc', timeout: 30_000 }, () => {
  it('measures a child burning 300 ms of CPU within a generous tolerance', async () => {
    const child = spawn(process.execPath, [fixture('busy')], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await nextLine(child, 'ready');
      const before = readProcessCpuNs(child.pid!);
      assert.ok(before !== undefined, 'no CPU reading');
      const done = nextLine(child, 'done');
      child.stdin!.write('burn 300\n');
      await done;
      const burnt = (readProcessCpuNs(child.pid!)! - before) / 1e6;
      assert.ok(burnt >= 250 && burnt <= 1000, `measured ${burnt.toFixed(1)} ms for a 300 ms burn`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('gives undefined for a process that does not exist', () => {
    assert.equal(readProcessCpuNs(2 ** 22 + 12345), undefined);
  });
});

describe('server RSS from /proc', { skip: !linux && 'needs Linux /proc', timeout: 30_000 }, () => {
  it('sees the peak grow when a child touches 96 MiB, and the reset bring it to the current RSS', async () => {
    const child = spawn(process.execPath, [fixture('busy')], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await nextLine(child, 'ready');
      const start = readRss(child.pid!)!;
      assert.ok(start.rss > 0 && start.peak >= start.rss);
      const allocated = nextLine(child, 'allocated');
      child.stdin!.write('alloc\n');
      await allocated;
      const after = readRss(child.pid!)!;
      assert.ok(after.peak - start.peak >= 80 * 1024 * 1024, `peak grew by ${after.peak - start.peak} bytes`);
      if (resetPeakRss(child.pid!)) {
        const reset = readRss(child.pid!)!;
        assert.ok(Math.abs(reset.peak - reset.rss) < 16 * 1024 * 1024, `peak ${reset.peak} vs rss ${reset.rss} right after reset`);
      }
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('byte counters', { timeout: 30_000 }, () => {
  it("count exactly the bytes written to and read from a child's pipes", async () => {
    const counter = new ByteCounter();
    const child = countingSpawn(counter)(process.execPath, [fixture('echo')], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const payload = Buffer.alloc(300_000, 0x61);
      const echoed = new Promise<void>((resolve) => {
        let seen = 0;
        child.stdout!.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen >= payload.length + 6) resolve();
        });
      });
      child.stdin!.write(payload);
      child.stdin!.write('héllo'); // 6 bytes of UTF-8, 5 characters
      await echoed;
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(counter.sent, payload.length + 6);
      assert.equal(counter.received, payload.length + 6);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('count exactly the bytes relayed through the TCP proxy in each direction', async () => {
    // An upstream that answers every byte received with two bytes.
    const upstream: Server = createServer((socket) => socket.on('data', (chunk: Buffer) => socket.write(Buffer.concat([chunk, chunk]))));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as { port: number }).port;
    const proxy = new CountingProxy(port);
    const proxyPort = await proxy.listen();
    try {
      const socket = connect(proxyPort, '127.0.0.1');
      const request = Buffer.alloc(200_000, 0x62);
      const received = await new Promise<number>((resolve, reject) => {
        let seen = 0;
        socket.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen >= request.length * 2) resolve(seen);
        });
        socket.on('error', reject);
        socket.write(request);
      });
      socket.destroy();
      assert.equal(received, request.length * 2);
      assert.equal(proxy.counter.sent, request.length);
      assert.equal(proxy.counter.received, request.length * 2);
    } finally {
      await proxy.close();
      await new Promise((r) => upstream.close(r));
    }
  });

  it('count exactly the same through the relay in a process of its own, asked over its stdin', async () => {
    const upstream: Server = createServer((socket) => socket.on('data', (chunk: Buffer) => socket.write(Buffer.concat([chunk, chunk]))));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const relay = await startRelayProcess((upstream.address() as { port: number }).port);
    try {
      assert.notEqual(relay.pid, process.pid);
      assert.deepEqual(await relay.snapshot(), { sent: 0, received: 0 });
      const socket = connect(relay.port, '127.0.0.1');
      const request = Buffer.alloc(150_000, 0x63);
      await new Promise<void>((resolve, reject) => {
        let seen = 0;
        socket.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen >= request.length * 2) resolve();
        });
        socket.on('error', reject);
        socket.write(request);
      });
      socket.destroy();
      assert.deepEqual(await relay.snapshot(), { sent: request.length, received: request.length * 2 });
    } finally {
      await relay.close();
      await new Promise((r) => upstream.close(r));
    }
    await assert.rejects(relay.snapshot(), /exited/);
  });
});
