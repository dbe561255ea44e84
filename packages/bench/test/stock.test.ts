// Our client on its defaults against the stock SDK client, on the same server on this package's defaults
// (issue 30): which variants every call scenario runs in each mode, and what the headline, the summary's
// table, the targets and the HTML report say, on made-up results whose right answers are known.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPlan, headline, parseOptions, quickVariants, renderHtml, renderSummary, STOCK_CLIENT, SUMMARY_WIDTH, toolVariants, type ScenarioResult } from 'mcp-msgpack-bench';
import { resultOf } from './fixtures/result.js';

describe('the stock client in every call scenario', () => {
  it('over stdio the stock client runs against our server on its defaults, compared with adaptive (ours on defaults there)', () => {
    const { variants, comparisons } = toolVariants('stdio', 1, true);
    const stock = variants.find((v) => v.id === STOCK_CLIENT);
    assert.deepEqual([stock?.stack, stock?.client, stock?.defaults, stock?.encoding], ['ours', 'stock', true, undefined]);
    const adaptive = variants.find((v) => v.id === 'adaptive');
    assert.deepEqual([adaptive?.defaults, adaptive?.encoding], [true, undefined], 'adaptive over stdio is both ends on their defaults');
    assert.ok(comparisons.some(([c, b]) => c === 'adaptive' && b === STOCK_CLIENT));
  });

  it('over HTTP our client and server on their defaults, and the stock client on the same server program', () => {
    const { variants, comparisons } = toolVariants('http', 16, true);
    const ours = variants.find((v) => v.id === 'defaults');
    const stock = variants.find((v) => v.id === STOCK_CLIENT);
    assert.deepEqual([ours?.stack, ours?.client, ours?.defaults, ours?.encoding, ours?.clients], ['ours', undefined, true, undefined, 16]);
    assert.deepEqual([stock?.stack, stock?.client, stock?.defaults, stock?.clients], ['ours', 'stock', true, 16]);
    assert.ok(comparisons.some(([c, b]) => c === 'defaults' && b === STOCK_CLIENT));
  });

  it('quick mode has the comparison in every call scenario but the link and revision ones, and leaves out JSON + gzip', async () => {
    const plan = await buildPlan(parseOptions([]), { mediaDir: '/tmp' });
    const withStock = plan.calls.filter((s) => s.comparisons.some(([, b]) => b === STOCK_CLIENT)).map((s) => s.name);
    const expected = plan.calls.filter((s) => s.venue !== 'revision' && !s.name.includes('-link') && s.name !== 'media-5MiB/stdio').map((s) => s.name);
    assert.deepEqual(withStock, expected);
    for (const transport of ['stdio', 'http-1', 'http-16']) {
      for (const venue of ['small', 'object', 'numeric'])
        assert.ok(
          plan.calls.some((s) => s.venue === venue && s.name.endsWith(`/${transport}`) && withStock.includes(s.name)),
          `${venue} over ${transport}`,
        );
    }
    for (const s of plan.calls) {
      const ids = s.variants.map((v) => v.id);
      assert.ok(!ids.includes('json-gzip'), `${s.name}: JSON + gzip in quick mode`);
      // Every comparison's variants ran.
      for (const [c, b] of s.comparisons) assert.ok(ids.includes(c) && ids.includes(b), `${s.name}: ${c} / ${b}`);
    }
    // The SDK's own server stays where a target reads it: over HTTP with one client, small and object calls.
    assert.deepEqual(
      plan.calls.filter((s) => s.variants.some((v) => v.id === 'stock-json')).map((s) => s.name),
      ['small-calls/http-1', 'object-50KB/http-1', 'object-1MB/http-1'],
    );
  });

  it("quick mode leaves to --full what neither its targets nor its summary need, runs the revision venue when named, and decides the stock client's ties", async () => {
    const plan = await buildPlan(parseOptions([]), { mediaDir: '/tmp' });
    const names = plan.calls.map((s) => s.name);
    assert.ok(!names.some((n) => n.includes('-link') || n.startsWith('revision') || /^media-.*\/http-16$/.test(n)), names.join(' '));
    assert.ok(!plan.calls.find((s) => s.name === 'media-5MiB/stdio')!.variants.some((v) => v.id === 'msgpack'), 'MessagePack with base64 media');
    assert.deepEqual(plan.codec.codecs, 'shipped');
    assert.deepEqual(
      (await buildPlan(parseOptions(['--scenario', 'revision']), { mediaDir: '/tmp' })).calls.map((s) => s.name),
      ['revision-small/http-1'],
    );
    assert.deepEqual([plan.decider?.baseline, plan.decider?.threshold, plan.decider?.minCalls], [STOCK_CLIENT, 1.05, 12]);
    const full = await buildPlan(parseOptions(['--full']), { mediaDir: '/tmp' });
    assert.equal(full.decider, undefined, '--full runs as it did');
    assert.ok(['revision-small/http-16', 'media-5MiB-link/http-1', 'media-1MiB/http-16'].every((n) => full.calls.some((s) => s.name === n)));
  });

  it('full mode keeps JSON + gzip and the SDK server, and adds the stock client', async () => {
    const plan = await buildPlan(parseOptions(['--full']), { mediaDir: '/tmp' });
    const object = plan.calls.find((s) => s.name === 'object-1MB/http-16')!;
    assert.deepEqual(
      object.variants.map((v) => v.id),
      ['stock-json', 'json', 'json-gzip', 'msgpack', 'adaptive', 'defaults', STOCK_CLIENT],
    );
    assert.ok(plan.calls.find((s) => s.name === 'media-5MiB/stdio')!.comparisons.some(([c, b]) => c === 'adaptive' && b === STOCK_CLIENT));
  });

  it('quickVariants drops a comparison with a variant it drops', () => {
    const scenario = { venue: 'text', transport: 'http' as const, clients: 1, ...toolVariants('http', 1, true) };
    const quick = quickVariants(scenario);
    assert.deepEqual(
      quick.variants.map((v) => v.id),
      ['json', 'msgpack', 'adaptive', 'defaults', STOCK_CLIENT],
    );
    assert.ok(quick.comparisons.every(([c, b]) => c !== 'json-gzip' && b !== 'json-gzip' && b !== 'stock-json'));
  });
});

const ratio = (min: number, median: number, max: number) => ({ min, median, max, rounds: 4 });
const verdictOf = (min: number, median: number, max: number): 'wins' | 'ties' | 'loses' => (Math.abs(median - 1) <= 0.05 || (min <= 1 && max >= 1) ? 'ties' : max < 1 ? 'wins' : 'loses');

function scenario(name: string, venue: ScenarioResult['venue'], runtime: string, cpu: [number, number, number], callsPerRound = 40): ScenarioResult {
  const candidate = name.endsWith('/stdio') ? 'adaptive' : 'defaults';
  const metrics = { cpu: { ratio: ratio(...cpu), verdict: verdictOf(...cpu) }, p50: { ratio: ratio(0.8, 0.9, 1.1), verdict: 'ties' as const } };
  const transport = name.endsWith('/stdio') ? 'stdio' : 'http';
  const variants = [candidate, STOCK_CLIENT].map((id) => ({ id, label: id, values: {} }));
  return { name, venue, title: name, runtime, transport, clients: 1, rounds: 4, callsPerRound, warmupCalls: 2, variants, comparisons: [{ candidate, baseline: STOCK_CLIENT, metrics }], notes: [] };
}

const result = (scenarios: ScenarioResult[]) => resultOf(scenarios, { node: '20', bun: '1' });

// Node: one loses in every round, one ties above 1.05x, one is met, one too short to judge above 1.05x.
// Bun: one within the allowance.
const run = () =>
  result([
    scenario('small-calls/stdio', 'small', 'node', [1.2, 1.3, 1.5]),
    scenario('object-50KB/http-1', 'object', 'node', [0.9, 1.4, 1.9]),
    scenario('text-diff-64KB/http-1', 'text', 'node', [0.7, 0.8, 0.9]),
    scenario('object-1MB/http-1', 'object', 'node', [0.95, 1.2, 1.6], 3),
    scenario('small-calls/http-16', 'small', 'bun', [0.98, 1.03, 1.08]),
  ]);

describe('what the summary says about the stock client', () => {
  it('a target per scenario and runtime: server CPU within 1.05x of the stock client, by the tie rule', () => {
    const byId = new Map(run().targets.map((t) => [t.id, t]));
    assert.equal(byId.get('stock-client-cpu:small-calls/stdio')?.status, 'missed');
    assert.equal(byId.get('stock-client-cpu:small-calls/stdio')?.candidate, 'adaptive');
    assert.deepEqual([byId.get('stock-client-cpu:object-50KB/http-1')?.status, byId.get('stock-client-cpu:object-50KB/http-1')?.lean], ['tie', 'worse']);
    assert.equal(byId.get('stock-client-cpu:text-diff-64KB/http-1')?.status, 'met');
    assert.equal(byId.get('stock-client-cpu:object-1MB/http-1')?.status, 'cannot judge');
    assert.equal(byId.get('bun:stock-client-cpu:small-calls/http-16')?.status, 'met');
    assert.equal(byId.get('bun:stock-client-cpu:small-calls/http-16')?.threshold, 1.05);
  });

  it("the headline names, per runtime, where the defaults cost more, with the median and the rounds' range", () => {
    const text = headline(run()).join('\n\n');
    for (const line of text.split('\n')) assert.ok(line.length <= SUMMARY_WIDTH, line);
    const node = text.slice(text.indexOf('STOCK CLIENT on node'), text.indexOf('STOCK CLIENT on bun')).replace(/\s+/g, ' ').trim();
    assert.match(node, /4 scenarios: COSTS MORE \(over 1\.05x in every round\) in 1: small-calls\/stdio 1\.30x \(1\.20-1\.50\);/);
    assert.match(node, /inside the noise \(TIE\) in 1: object-50KB\/http-1 1\.40x \(0\.90-1\.90\);/);
    assert.match(node, /too short to judge \(CAN'T JUDGE\) in 1: object-1MB\/http-1 1\.20x \(0\.95-1\.60\);/);
    assert.match(node, /within 1\.05x by the median in 1\.$/);
    const bun = text.slice(text.indexOf('STOCK CLIENT on bun')).replace(/\s+/g, ' ');
    assert.match(bun, /1 scenarios: costs more \(over 1\.05x in every round\) in none; within 1\.05x by the median in 1\./);
    // Before the targets' count, in the headline the HTML report opens with too.
    assert.ok(text.indexOf('STOCK CLIENT') < text.indexOf('TARGETS: '));
  });

  it('the summary has one row per scenario: server CPU and p50 with their range, and the verdict in words', () => {
    const lines = renderSummary(run()).split('\n');
    for (const line of lines) assert.ok(line.length <= SUMMARY_WIDTH, line);
    const title = lines.findIndex((l) => l.startsWith('OUR CLIENT ON ITS DEFAULTS / THE STOCK SDK CLIENT on node'));
    const wires = lines.findIndex((l) => l.startsWith('HOW TO READ WHAT FOLLOWS'));
    assert.ok(title > wires && wires > 0 && lines.findIndex((l, i) => i > title && l.startsWith('TARGETS: ')) > title, 'the table comes after the legend, before the targets');
    const cells = (name: string) =>
      lines
        .slice(title)
        .find((l) => l.startsWith(name))!
        .slice(name.length)
        .trim()
        .split(/\s{2,}/);
    assert.deepEqual(cells('small-calls/stdio'), ['1.30x (1.20-1.50)', '0.90x (0.80-1.10)', 'MISSED']);
    assert.deepEqual(cells('object-50KB/http-1'), ['1.40x (0.90-1.90)', '0.90x (0.80-1.10)', 'TIE (leans worse)']);
    assert.deepEqual(cells('object-1MB/http-1'), ['1.20x (0.95-1.60)', '0.90x (0.80-1.10)', "CAN'T JUDGE"]);
    // Its ids are in the legend, and its targets are grouped under their comparison.
    const text = lines.join('\n');
    assert.match(text.replace(/\s+/g, ' '), /stock-client: the MCP SDK's own client \(JSON\) against our server on its defaults/);
    assert.ok(lines.includes('adaptive / stock-client:') && lines.includes('defaults / stock-client:'));
  });

  it('the HTML report has the table, linked from its contents, and opens with the same headline', () => {
    const html = renderHtml(run());
    assert.ok(html.includes('<li><a href="#stock-client">'));
    const section = html.slice(html.indexOf('<h2 id="stock-client">'));
    assert.ok(html.indexOf('<h2 id="stock-client">') > html.indexOf('<nav id="contents">'));
    assert.match(section, /<a href="#node-small-calls-stdio">small-calls\/stdio<\/a><\/td><td class="loses">1\.30x \(1\.20-1\.50\)<\/td>/);
    assert.match(section, /<td class="loses">MISSED<\/td>/);
    assert.ok(html.includes('STOCK CLIENT on node'));
  });

  it('says nothing about the stock client when no scenario compared it', () => {
    const none = result([{ ...scenario('small-calls/stdio', 'small', 'node', [1.2, 1.3, 1.5]), comparisons: [] }]);
    assert.ok(!headline(none).join(' ').includes('STOCK CLIENT'));
    assert.ok(!renderSummary(none).includes('OUR CLIENT ON ITS DEFAULTS'));
  });
});
