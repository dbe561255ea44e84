// --scenario bridge: the bridge both ways, a round of each path. Checks that every path ran and was measured
// (CPU, bytes on the network leg, latency) and the report's rows, not any figure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderBridge, runBridgeScenario, takeChildExits } from 'mcp-msgpack-bench';

describe('--scenario bridge', { timeout: 240_000 }, () => {
  it('measures every path of both ways and prints them', { timeout: 240_000 }, async () => {
    const settings = { rounds: 1, bigCalls: 1, smallCalls: 2 };
    const paths = await runBridgeScenario({ ...settings, log: () => {} });
    assert.ok(paths, 'the scenario was skipped in a checkout of the repository');
    // Its children (the media server, the bridges, the stdio servers) stopped as the scenario stops them: none died.
    assert.deepEqual(takeChildExits(), []);
    const names = paths.map((p) => `${p.way}: ${p.name}`);
    for (const expected of [
      'host to remote: direct JSON (SDK HTTP client)',
      'host to remote: mcp-msgpack-bridge',
      'reverse: SDK JSON HTTP client -> bridge --serve',
      'reverse: our HTTP client (native bytes) -> bridge --serve',
      'reverse: our HTTP client, callToolNative -> bridge --serve',
      'reverse: stock stdio client -> JSON stdio child (no bridge)',
    ]) {
      assert.ok(names.includes(expected), `${expected} did not run: ${names.join('; ')}`);
    }
    for (const path of paths) {
      assert.equal(path.rounds.length, 1, path.name);
      const [round] = path.rounds;
      assert.ok(round!.bigMs > 0 && round!.smallMs > 0 && round!.serverCpu >= 0, `${path.name}: ${JSON.stringify(round)}`);
      // Over the network leg a 5 MiB read is at least its bytes; the stdio path has no network leg.
      if (!path.local) assert.ok(round!.bytes >= 5 * 1024 * 1024, `${path.name}: ${round!.bytes} bytes`);
    }
    // The bridge puts the image on the network as bytes, the direct JSON path as base64.
    const bytesOf = (name: string) => paths.find((p) => p.name === name)!.rounds[0]!.bytes;
    assert.ok(bytesOf('mcp-msgpack-bridge') < bytesOf('direct JSON (SDK HTTP client)'));
    const text = renderBridge(paths, settings);
    for (const path of paths) assert.ok(text.includes(path.name), `${path.name} not in the report`);
    assert.match(text, /HOST TO REMOTE/);
    assert.match(text, /REVERSE/);
  });
});
