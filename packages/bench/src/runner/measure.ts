import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readProcessCpuNs } from '../metrics/cpu.js';
import { readRss, resetPeakRss, RssSampler } from '../metrics/rss.js';
import { percentile } from '../stats.js';
import type { Session } from './session.js';

/** One call of a scenario, made by one client; `index` counts calls across the round. */
export type CallFunction = (client: Client, index: number) => Promise<void>;

/** What one variant did in one round. Per-call values are averages over the round's calls. */
export interface RoundSample {
  calls: number;
  wallMs: number;
  /** Server CPU (user + system, all threads) per call, ms; undefined without /proc. */
  cpuMsPerCall?: number;
  /**
   * CPU of the process the clients run in (this one: user + system, all threads) per call, ms: client-side
   * encoding, decoding and the SDK Client's work. The byte-counting relay runs elsewhere.
   */
  clientCpuMsPerCall: number;
  /** Server peak RSS during the round, bytes. */
  peakRss?: number;
  /** Server RSS right after the round, bytes. */
  steadyRss?: number;
  /** Client-to-server bytes per call. */
  sentPerCall: number;
  /** Server-to-client bytes per call. */
  receivedPerCall: number;
  callsPerSecond: number;
  /** Every call's latency in this round, ms. */
  latencies: number[];
  p50: number;
  p95: number;
  p99: number;
}

/**
 * Runs `calls` calls through the session's clients (all clients at once, each making its share in turn)
 * and measures the server around them.
 */
export async function measureRound(session: Session, calls: number, call: CallFunction): Promise<RoundSample> {
  const pid = session.serverPid;
  const peakResettable = resetPeakRss(pid);
  const sampler = peakResettable ? undefined : new RssSampler(pid);
  sampler?.start();
  const cpuBefore = readProcessCpuNs(pid);
  const bytesBefore = await session.bytes.snapshot();
  const latencies: number[] = [];
  let next = 0;
  const clientCpuBefore = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    session.clients.map(async (client) => {
      for (;;) {
        const index = next++;
        if (index >= calls) return;
        const t0 = performance.now();
        await call(client, index);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const wallMs = performance.now() - start;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const cpuAfter = readProcessCpuNs(pid);
  const bytesAfter = await session.bytes.snapshot();
  const rss = readRss(pid);
  const sampledPeak = sampler?.stop();
  return {
    calls,
    wallMs,
    cpuMsPerCall: cpuBefore !== undefined && cpuAfter !== undefined ? (cpuAfter - cpuBefore) / 1e6 / calls : undefined,
    clientCpuMsPerCall: (clientCpu.user + clientCpu.system) / 1000 / calls,
    peakRss: peakResettable ? rss?.peak : sampledPeak,
    steadyRss: rss?.rss,
    sentPerCall: (bytesAfter.sent - bytesBefore.sent) / calls,
    receivedPerCall: (bytesAfter.received - bytesBefore.received) / calls,
    callsPerSecond: calls / (wallMs / 1000),
    latencies,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}
