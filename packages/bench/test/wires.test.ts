// The summary's side-by-side table of our three wires (server CPU, client CPU, bytes), the sentence on the
// bytes the adaptive default gives up, the adaptive targets (per runtime, with the tie rule) and the
// comparison against the cheaper wire per round: on made-up results whose right answers are known.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adaptiveTargets, compareWithBest, parityStatus, renderSummary, SUMMARY_WIDTH, type ScenarioResult } from 'mcp-msgpack-bench';
import { resultOf } from './fixtures/result.js';

type Ratios = Partial<Record<'cpu' | 'clientCpu' | 'wire', [number, number, number]>>;

function comparison(candidate: string, baseline: string, ratios: Ratios) {
  const metrics: ScenarioResult['comparisons'][number]['metrics'] = {};
  for (const [key, [min, median, max]] of Object.entries(ratios) as Array<[keyof Ratios, [number, number, number]]>) {
    const verdict = Math.abs(median - 1) <= 0.05 || (min <= 1 && max >= 1) ? 'ties' : max < 1 ? 'wins' : 'loses';
    metrics[key] = { ratio: { min, median, max, rounds: 4 }, verdict };
  }
  return { candidate, baseline, metrics };
}

function scenario(name: string, venue: ScenarioResult['venue'], runtime: string, comparisons: ScenarioResult['comparisons'], ids = ['json', 'msgpack', 'adaptive']): ScenarioResult {
  const transport = name.endsWith('/stdio') ? 'stdio' : 'http';
  return { name, venue, title: name, runtime, transport, clients: 1, rounds: 4, callsPerRound: 10, warmupCalls: 10, variants: ids.map((id) => ({ id, label: id, values: {} })), comparisons, notes: [] };
}

const objectHttp = (runtime: string) =>
  scenario('object-50KB/http-1', 'object', runtime, [
    comparison('msgpack', 'json', { cpu: [1.3, 1.4, 1.5], clientCpu: [1.1, 1.2, 1.3], wire: [0.82, 0.83, 0.84] }),
    comparison('adaptive', 'json', { cpu: [0.95, 1.0, 1.04], clientCpu: [0.97, 1.01, 1.02], wire: [0.99, 1.0, 1.01] }),
    comparison('adaptive', 'min(json,msgpack)', { cpu: [0.95, 1.0, 1.04], clientCpu: [0.97, 1.01, 1.02] }),
  ]);
const smallStdio = (runtime: string) =>
  scenario('small-calls/stdio', 'small', runtime, [comparison('msgpack', 'json', { cpu: [1.1, 1.2, 1.3], clientCpu: [1.0, 1.1, 1.2], wire: [0.76, 0.77, 0.78] })], ['json', 'msgpack']);

const result = (scenarios: ScenarioResult[]) => resultOf(scenarios);

describe('our three wires side by side in the summary', () => {
  it('shows MessagePack always and adaptive against JSON on server CPU, client CPU and bytes, "-" where adaptive did not run', () => {
    const text = renderSummary(result([objectHttp('node'), smallStdio('node')]));
    const lines = text.split('\n');
    for (const line of lines) assert.ok(line.length <= SUMMARY_WIDTH, `over ${SUMMARY_WIDTH} columns: ${line}`);
    const title = lines.findIndex((l) => l.startsWith('WIRES SIDE BY SIDE'));
    assert.ok(title > 0, 'no side-by-side section');
    const header = lines.slice(title).find((l) => l.includes('server CPU'))!;
    assert.ok(header.indexOf('server CPU') < header.indexOf('client CPU') && header.indexOf('client CPU') < header.indexOf('wire bytes'), header);
    const cells = (name: string) =>
      lines
        .find((l) => l.startsWith(name))!
        .slice(name.length)
        .trim()
        .split(/\s{2,}/);
    assert.deepEqual(cells('object-50KB/http-1'), ['1.40x L', '1.00x =', '1.20x L', '1.01x =', '0.83x W', '1.00x =']);
    assert.deepEqual(cells('small-calls/stdio'), ['1.20x L', '-', '1.10x =', '-', '0.77x W', '-']);
    // Before the targets, so that it is on the first screen after the legend.
    assert.ok(lines.findIndex((l, i) => i > title && l.startsWith('TARGETS: ')) > title, 'the targets come after the wires');
  });

  it('says plainly, with the figures, what bytes the adaptive default gives up on object results', () => {
    const text = renderSummary(result([objectHttp('node')])).replace(/\s+/g, ' ');
    assert.match(text, /gives up part of MessagePack's byte saving on 1 of 1 object and numeric scenarios/);
    assert.match(text, /object-50KB\/http-1 1\.00x vs 0\.83x/);
  });

  it('says so when the adaptive default sent as few bytes as MessagePack always', () => {
    const same = scenario('embedding-1536/http-1', 'numeric', 'node', [comparison('msgpack', 'json', { wire: [0.48, 0.49, 0.5] }), comparison('adaptive', 'json', { wire: [0.48, 0.49, 0.5] })]);
    assert.match(renderSummary(result([same])).replace(/\s+/g, ' '), /the adaptive default sent as few bytes as MessagePack always/);
  });
});

describe('adaptive targets', () => {
  it('the tie rule with an allowance: met within it, missed on a loss, tied otherwise', () => {
    assert.equal(parityStatus(1.04, 1.05, 'ties'), 'met');
    assert.equal(parityStatus(0.8, 1.05, 'wins'), 'met');
    assert.equal(parityStatus(1.2, 1.05, 'loses'), 'missed');
    assert.equal(parityStatus(1.2, 1.05, 'ties'), 'tie');
    // Without an allowance: only a win is met.
    assert.equal(parityStatus(0.99, 1, 'ties'), 'tie');
    assert.equal(parityStatus(0.9, 1, 'wins'), 'met');
    assert.equal(parityStatus(1.1, 1, 'loses'), 'missed');
  });

  it('server CPU within 1.05x and client CPU no worse than the cheaper wire, in every scenario where adaptive ran, per runtime', () => {
    const loses = scenario('small-calls/http-1', 'small', 'bun', [comparison('adaptive', 'min(json,msgpack)', { cpu: [1.1, 1.2, 1.3], clientCpu: [0.8, 0.9, 0.95] })]);
    const targets = [...adaptiveTargets([objectHttp('node')], 'node'), ...adaptiveTargets([loses], 'bun')];
    const byId = new Map(targets.map((t) => [t.id, t]));
    assert.equal(byId.get('adaptive-cpu:object-50KB/http-1')?.status, 'met');
    assert.equal(byId.get('adaptive-client-cpu:object-50KB/http-1')?.status, 'tie');
    assert.equal(byId.get('bun:adaptive-cpu:small-calls/http-1')?.status, 'missed');
    assert.equal(byId.get('bun:adaptive-cpu:small-calls/http-1')?.measured, 1.2);
    assert.equal(byId.get('bun:adaptive-client-cpu:small-calls/http-1')?.status, 'met');
    // No media scenario ran: its targets are not measured, with the reason.
    assert.equal(byId.get('adaptive-media-cpu')?.status, 'not measured');
    assert.match(byId.get('bun:adaptive-media-wire')?.note ?? '', /did not run on Bun/);
  });

  it('media: 5 MiB native read <= 0.25x JSON on Node and <= 0.5x on Bun, wire bytes <= 0.751x', () => {
    const media = (runtime: string) => scenario('media-5MiB/http-1', 'media', runtime, [comparison('adaptive', 'json', { cpu: [0.3, 0.4, 0.45], wire: [0.75, 0.75, 0.75] })]);
    const node = adaptiveTargets([media('node')], 'node');
    const bun = adaptiveTargets([media('bun')], 'bun');
    assert.deepEqual([node.find((t) => t.id === 'adaptive-media-cpu')?.status, node.find((t) => t.id === 'adaptive-media-cpu')?.threshold], ['missed', 0.25]);
    assert.deepEqual([bun.find((t) => t.id === 'bun:adaptive-media-cpu')?.status, bun.find((t) => t.id === 'bun:adaptive-media-cpu')?.threshold], ['met', 0.5]);
    assert.equal(bun.find((t) => t.id === 'bun:adaptive-media-wire')?.status, 'met');
  });

  it('says so when stdio ran without an adaptive variant, rather than leaving the target out', () => {
    const stdio = adaptiveTargets([smallStdio('node')], 'node').find((t) => t.id === 'adaptive-stdio');
    assert.equal(stdio?.status, 'not measured');
    assert.match(stdio?.note ?? '', /no adaptive variant ran over stdio/);
  });
});

describe('comparison with the cheaper of two wires', () => {
  const round = (cpu: number, clientCpu: number, sent: number, received: number, callsPerSecond: number) => ({
    calls: 10,
    wallMs: 10,
    cpuMsPerCall: cpu,
    clientCpuMsPerCall: clientCpu,
    sentPerCall: sent,
    receivedPerCall: received,
    callsPerSecond,
    latencies: [1],
    p50: 1,
    p95: 1,
    p99: 1,
  });

  it('compares, metric by metric, with the variant whose median is better, round by round', () => {
    // json: cpu 2, 1, 2 (median 2); msgpack: cpu 1, 3, 1 (median 1): msgpack is the cheaper on CPU.
    const json = [round(2, 1, 100, 1000, 50), round(1, 2, 100, 1000, 50), round(2, 1, 100, 1000, 50)];
    const msgpack = [round(1, 3, 90, 800, 80), round(3, 3, 90, 800, 40), round(1, 3, 90, 800, 80)];
    const adaptive = [round(1, 1, 90, 800, 80), round(3, 2, 100, 1000, 40), round(2, 1, 90, 800, 40)];
    const c = compareWithBest('adaptive', adaptive, ['json', json], ['msgpack', msgpack]);
    assert.equal(c.baseline, 'min(json,msgpack)');
    // cpu against msgpack: 1/1, 3/3, 2/1.
    assert.deepEqual([c.metrics.cpu?.ratio.min, c.metrics.cpu?.ratio.median, c.metrics.cpu?.ratio.max], [1, 1, 2]);
    // client CPU against json (median 1 against 3): 1/1, 2/2, 1/1.
    assert.deepEqual([c.metrics.clientCpu?.ratio.min, c.metrics.clientCpu?.ratio.max], [1, 1]);
    // wire = sent + received, msgpack's 890 is smaller: 890/890, 1100/890, 890/890.
    assert.deepEqual([c.metrics.wire?.ratio.min, c.metrics.wire?.ratio.max], [1, 1100 / 890]);
    // calls/s: higher is better, msgpack's median 80 against json's 50: 80/80, 40/40, 40/80.
    assert.deepEqual([c.metrics.throughput?.ratio.min, c.metrics.throughput?.ratio.max], [0.5, 1]);
  });
});
