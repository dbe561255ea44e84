// planWire is the one reading of a transport's `wire` option (wire-choice/wire-plan.ts): what each transport
// starts on, whether that is settled, and its part in the stdio upgrade. The transports' own tests
// (stdio-wire-upgrade, http-wire-fallback) show each plan carried out end to end.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planWire } from '../src/wire-choice/wire-plan.js';

describe('planWire', () => {
  it("reads 'auto' (and no option) per transport", () => {
    for (const choice of [undefined, 'auto'] as const) {
      assert.deepEqual(planWire(choice, 'stdio-client'), { start: 'json', forced: false, upgrade: 'offer' });
      assert.deepEqual(planWire(choice, 'stdio-server'), { start: undefined, forced: false, upgrade: 'accept' });
      assert.deepEqual(planWire(choice, 'http-client'), { start: 'msgpack', forced: false });
    }
  });

  it('speaks a named wire from the outset; a forced stdio server still takes offers off', () => {
    for (const wire of ['json', 'msgpack'] as const) {
      assert.deepEqual(planWire(wire, 'stdio-client'), { start: wire, forced: true, upgrade: undefined });
      assert.deepEqual(planWire(wire, 'stdio-server'), { start: wire, forced: true, upgrade: 'ignore' });
      assert.deepEqual(planWire(wire, 'http-client'), { start: wire, forced: true, upgrade: undefined });
    }
  });
});
