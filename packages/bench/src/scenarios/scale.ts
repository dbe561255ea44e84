import { existsSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callToolNative, HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { readProcessCpuNs } from '../metrics/cpu.js';
import { watchChild } from '../runner/child-watch.js';
import { median } from '../stats.js';

/**
 * `--scenario scale` (opt-in: it needs redis-server and nginx, and a checkout of the repository): instances
 * of examples/scale/server.mjs behind nginx, sharing the Redis event store, measured for calls/s and server
 * CPU per call, 1 vs 3 instances, JSON vs MessagePack, a small call and a 5 MiB native-bytes read; and the
 * same single instance without any event store, one reaching Redis through a unix socket instead of
 * loopback TCP, and one storing every result whole (maxEventBytes above 5 MiB; by default a result over 1 MiB
 * is not copied into Redis, and a resume of it gets an error in its place), in the same run, for the store's
 * own cost.
 */

interface Services {
  missingBinaries(names: string[]): string | undefined;
  startRedis(options: { unixSocket: boolean }): Promise<{ url: string; unixUrl: string; process: ChildProcess; stop(): Promise<void> }>;
  startNginx(config: unknown, upstreams: string[]): Promise<{ url: string; stop(): Promise<void> }>;
  startProcess(command: string, args: string[], ready: (output: string) => boolean): Promise<ChildProcess>;
  stopProcess(child: ChildProcess): Promise<void>;
}

const ROOT = new URL('../../../../../', import.meta.url);
const MEDIA_BYTES = 5 * 1024 * 1024;
const SESSIONS = 3;
const UNIX_FLEET = '1 instance + Redis (unix socket)';
const STORE_ALL_FLEET = '1 instance + Redis, every result stored';
/** What store-all raises above a 5 MiB result: the event, stream and store limits. */
const STORE_ALL = ['--max-event-bytes', String(8 * 1024 * 1024), '--max-stream-bytes', String(64 * 1024 * 1024), '--max-store-bytes', String(4 * 1024 * 1024 * 1024)];

type Wire = 'json' | 'msgpack';
type CallKind = 'small' | 'media-5MiB';

interface Fleet {
  label: string;
  instances: number;
  store: 'redis' | 'none';
  url: string;
  pids: number[];
}

export interface ScaleRow {
  fleet: string;
  wire: Wire;
  call: CallKind;
  callsPerSecond: number[];
  serverCpuMsPerCall: number[];
  redisCpuMsPerCall: number[];
}

export interface ScaleOptions {
  rounds: number;
  smallCalls: number;
  mediaCalls: number;
  log: (line: string) => void;
}

/** Runs the scenario; undefined (with the reason logged) when it cannot run here. */
export async function runScaleScenario(options: ScaleOptions): Promise<ScaleRow[] | undefined> {
  const servicesPath = fileURLToPath(new URL('scripts/lib/services.mjs', ROOT));
  const serverPath = fileURLToPath(new URL('examples/scale/server.mjs', ROOT));
  if (!existsSync(servicesPath) || !existsSync(serverPath)) {
    options.log('scale: skipped: it runs from a checkout of the mcp-msgpack repository (examples/scale, scripts/lib)');
    return undefined;
  }
  const services = (await import(new URL('scripts/lib/services.mjs', ROOT).href)) as Services;
  const { nginxConfig } = (await import(new URL('examples/scale/nginx.conf.mjs', ROOT).href)) as { nginxConfig: unknown };
  let missing: string | undefined;
  try {
    missing = services.missingBinaries(['redis-server', 'nginx']);
  } catch (error) {
    missing = (error as Error).message;
  }
  if (missing) {
    options.log(`scale: skipped: ${missing}`);
    return undefined;
  }

  const stops: (() => Promise<void>)[] = [];
  try {
    const redis = await services.startRedis({ unixSocket: true });
    stops.push(() => redis.stop());
    const start = async (name: string, store: string, redisUrl = redis.url, extra: string[] = []) => {
      let port = '';
      const child = await services.startProcess(process.execPath, [serverPath, '--port', '0', '--redis', redisUrl, '--name', name, '--store', store, ...extra], (output) => {
        port = /listening (\d+)/.exec(output)?.[1] ?? '';
        return port !== '';
      });
      const watched = watchChild(child, { role: 'scale instance', runtime: process.execPath, scenario: 'scale', variant: name });
      stops.push(() => {
        watched.expectExit();
        return services.stopProcess(child);
      });
      return { address: `127.0.0.1:${port}`, pid: child.pid! };
    };
    const withStore = [await start('i1', 'redis'), await start('i2', 'redis'), await start('i3', 'redis')];
    const without = await start('i0', 'none');
    const throughUnixSocket = await start('u1', 'redis', redis.unixUrl);
    const storingAll = await start('a1', 'redis', redis.url, STORE_ALL);
    const fleet = async (label: string, members: { address: string; pid: number }[], store: Fleet['store']): Promise<Fleet> => {
      const nginx = await services.startNginx(
        nginxConfig,
        members.map((member) => member.address),
      );
      stops.push(() => nginx.stop());
      return { label, instances: members.length, store, url: `${nginx.url}/mcp`, pids: members.map((member) => member.pid) };
    };
    const fleets = [
      await fleet('1 instance, no store', [without], 'none'),
      await fleet('1 instance + Redis', [withStore[0]!], 'redis'),
      await fleet(UNIX_FLEET, [throughUnixSocket], 'redis'),
      await fleet(STORE_ALL_FLEET, [storingAll], 'redis'),
      await fleet('3 instances + Redis', withStore, 'redis'),
    ];

    const rows = new Map<string, ScaleRow>();
    for (let round = 0; round < options.rounds; round++) {
      // Alternate the order so drift on a noisy machine hits every fleet alike.
      const order = round % 2 === 0 ? fleets : [...fleets].reverse();
      for (const call of ['small', 'media-5MiB'] as const) {
        for (const wire of ['json', 'msgpack'] as const) {
          for (const target of order) {
            const key = `${target.label}|${wire}|${call}`;
            const row = rows.get(key) ?? { fleet: target.label, wire, call, callsPerSecond: [], serverCpuMsPerCall: [], redisCpuMsPerCall: [] };
            rows.set(key, row);
            const calls = call === 'small' ? options.smallCalls : options.mediaCalls;
            const measured = await measure(target, wire, call, calls, redis.process.pid!);
            row.callsPerSecond.push(measured.callsPerSecond);
            row.serverCpuMsPerCall.push(measured.serverCpuMsPerCall);
            row.redisCpuMsPerCall.push(measured.redisCpuMsPerCall);
            options.log(`scale: round ${round + 1}: ${target.label}, ${wire}, ${call}: ${measured.callsPerSecond.toFixed(1)} calls/s, ${measured.serverCpuMsPerCall.toFixed(3)} ms server CPU/call`);
          }
        }
      }
    }
    return [...rows.values()];
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

async function measure(fleet: Fleet, wire: Wire, call: CallKind, calls: number, redisPid: number) {
  const clients: Client[] = [];
  try {
    for (let i = 0; i < SESSIONS; i++) {
      const client = new Client({ name: 'bench-scale', version: '1.0.0' });
      await client.connect(new HttpMsgpackClientTransport(new URL(fleet.url), { wire, nativeBytes: true }));
      clients.push(client);
    }
    const one = (client: Client) => (call === 'small' ? client.callTool({ name: 'whoami', arguments: { text: 'x' } }) : callToolNative(client, { name: 'media', arguments: { bytes: MEDIA_BYTES } }));
    // Warm-up: every session once or more, outside the measurement.
    await Promise.all(clients.map((client) => one(client)));
    const cpu = () => fleet.pids.reduce((sum, pid) => sum + (readProcessCpuNs(pid) ?? 0), 0);
    const serverBefore = cpu();
    const redisBefore = readProcessCpuNs(redisPid) ?? 0;
    const started = performance.now();
    let next = 0;
    // Each session runs calls one after another; sessions in parallel (nginx spreads them over instances).
    await Promise.all(
      clients.map(async (client) => {
        while (next < calls) {
          next++;
          await one(client);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      callsPerSecond: calls / seconds,
      serverCpuMsPerCall: (cpu() - serverBefore) / 1e6 / calls,
      redisCpuMsPerCall: fleet.store === 'redis' ? ((readProcessCpuNs(redisPid) ?? 0) - redisBefore) / 1e6 / calls : 0,
    };
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
  }
}

/** The table, and what the store adds per call (medians over rounds, min..max in brackets). */
export function renderScale(rows: ScaleRow[], rounds: number): string {
  const spread = (values: number[], digits: number) => `${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}..${Math.max(...values).toFixed(digits)}]`;
  const lines = [
    `scale: instances of examples/scale/server.mjs behind nginx, ${SESSIONS} sessions calling in parallel, ${rounds} round(s); medians [min..max]`,
    '',
    '| fleet | wire | call | calls/s | server CPU ms/call | redis-server CPU ms/call |',
    '| --- | --- | --- | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.fleet} | ${row.wire} | ${row.call} | ${spread(row.callsPerSecond, 1)} | ${spread(row.serverCpuMsPerCall, 3)} | ${row.redisCpuMsPerCall.some((v) => v > 0) ? spread(row.redisCpuMsPerCall, 3) : '-'} |`,
    );
  }
  lines.push('');
  for (const call of ['media-5MiB', 'small'] as const) {
    for (const wire of ['msgpack', 'json'] as const) {
      const find = (fleet: string) => rows.find((row) => row.fleet === fleet && row.wire === wire && row.call === call);
      const without = find('1 instance, no store');
      for (const [fleet, how] of [
        ['1 instance + Redis', 'TCP'],
        [UNIX_FLEET, 'unix socket'],
        [STORE_ALL_FLEET, 'TCP, every result stored'],
      ] as const) {
        const withStore = find(fleet);
        if (!withStore || !without) continue;
        const ratio = median(withStore.serverCpuMsPerCall) / median(without.serverCpuMsPerCall) - 1;
        const total = (median(withStore.serverCpuMsPerCall) + median(withStore.redisCpuMsPerCall)) / median(without.serverCpuMsPerCall) - 1;
        const target = call === 'media-5MiB' && wire === 'msgpack' && fleet !== STORE_ALL_FLEET ? ` (target < +10%: ${ratio < 0.1 ? 'met' : 'missed'})` : '';
        lines.push(`Redis store (${how}), ${call} ${wire}: server CPU/call ${pct(ratio)}${target}; with redis-server's CPU counted ${pct(total)}`);
      }
    }
  }
  lines.push('', 'A shared 2-core machine is noisy: compare rows of one run, not across runs.');
  return lines.join('\n') + '\n';
}

function pct(ratio: number): string {
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`;
}
