// Race attacks, each with a bounded concurrent swapper in a child process (fixed iterations, time-boxed)
// toggling a path between its real self and a symlink leading outside while the server works on it.
// Whatever the interleaving: the secret never appears in a response, nothing outside is created or
// changed, and the secret is never moved.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, connectInProcess, textOf, type Connected } from './helpers/client.js';
import { makeLayout, outsideUntouched, SECRET, type Layout } from './helpers/layout.js';
import { startSwapper } from './helpers/swapper.js';

const SECRET_B64 = Buffer.from(SECRET).toString('base64');
/** Calls per race: bounded, and the swapper is time-boxed too. */
const CALLS = 300;
const SWAP_MS = 4000;

let layout: Layout;
let conn: Connected;

before(async () => {
  layout = await makeLayout();
  conn = await connectInProcess([layout.allowed]);
});
after(async () => {
  await conn?.close();
  await layout?.cleanup();
});

async function assertOutsideUntouched(): Promise<void> {
  const { ok, detail } = await outsideUntouched(layout);
  assert.ok(ok, `something outside the allowed directory changed: ${detail}`);
}

/** Runs `attempt` up to CALLS times while the swapper runs; returns how many calls succeeded and failed. */
async function race(target: string, linkTarget: string, attempt: (i: number) => Promise<boolean>): Promise<{ ok: number; failed: number; swaps: number }> {
  const swapper = await startSwapper(target, linkTarget, 1_000_000, SWAP_MS);
  let stats = { ok: 0, failed: 0, swaps: 0 };
  let ok = 0;
  let failed = 0;
  try {
    for (let i = 0; i < CALLS; i++) {
      if (await attempt(i)) ok++;
      else failed++;
    }
  } finally {
    // Stops the swapper (and waits for it to restore the real entry) even when an assertion failed.
    const swaps = await swapper.stop();
    stats = { ok, failed, swaps };
  }
  return stats;
}

describe('race attacks (bounded concurrent swapper)', { timeout: 60_000 }, () => {
  it('read race: the file is swapped for a symlink to the secret during reads (GHSA-p9cv-8g75-4xcg)', async () => {
    const file = path.join(layout.allowed, 'racy.txt');
    await fs.writeFile(file, 'harmless');
    const tools = ['read_text_file', 'read_media_file', 'get_file_info', 'resources/read'] as const;
    const stats = await race(file, layout.secretFile, async (i) => {
      if (tools[i % tools.length] === 'resources/read') {
        const read = await conn.client.readResource({ uri: `file://${file}` }).catch((error: Error) => error);
        const seen = read instanceof Error ? read.message : JSON.stringify(read);
        assert.ok(!seen.includes(SECRET) && !seen.includes(SECRET_B64), `leak on resources/read ${i}`);
        return !(read instanceof Error);
      }
      const result = await call(conn.client, tools[i % tools.length]! as string, { path: file });
      const everything = JSON.stringify(result);
      assert.ok(!everything.includes(SECRET) && !everything.includes(SECRET_B64), `leak on call ${i}: ${everything.slice(0, 200)}`);
      if (tools[i % tools.length] === 'get_file_info' && !result.isError) {
        // The secret is 27 bytes, the harmless file 8: a size of 27 would leak metadata of the outside file.
        assert.match(textOf(result), /^size: 8$/m);
      }
      return !result.isError;
    });
    await assertOutsideUntouched();
    assert.ok(stats.ok + stats.failed === CALLS && stats.swaps > 0, JSON.stringify(stats));
  });

  it('write race: the parent directory is swapped for a symlink to a directory outside (GHSA-53mr-w429-c597)', async () => {
    const parent = path.join(layout.allowed, 'wparent');
    await fs.mkdir(parent);
    const stats = await race(parent, path.join(layout.outside, 'dir'), async (i) => {
      const tool = i % 3 === 0 ? 'create_directory' : i % 3 === 1 ? 'write_file' : 'edit_file';
      const target = path.join(parent, tool === 'create_directory' ? `made-${i}` : tool === 'edit_file' ? 'secret.txt' : `planted-${i}.txt`);
      const args = tool === 'write_file' ? { path: target, content: `PWNED ${i}` } : tool === 'edit_file' ? { path: target, edits: [{ oldText: SECRET, newText: 'PWNED' }] } : { path: target };
      const result = await call(conn.client, tool, args);
      assert.ok(!JSON.stringify(result).includes(SECRET), `leak on call ${i}`);
      return !result.isError;
    });
    await assertOutsideUntouched();
    // Whatever succeeded landed inside, in the real directory; no temporary files were left behind.
    const inside = await fs.readdir(parent);
    assert.ok(
      inside.every((name) => /^(planted-\d+\.txt|made-\d+)$/.test(name)),
      inside.join(','),
    );
    assert.ok(stats.swaps > 0, JSON.stringify(stats));
  });

  it('write race: the target file is swapped for a symlink to the secret (never written through)', async () => {
    const file = path.join(layout.allowed, 'wtarget.txt');
    await fs.writeFile(file, 'harmless');
    const stats = await race(file, layout.secretFile, async (i) => {
      const result = await call(conn.client, 'write_file', { path: file, content: `PWNED ${i}` });
      return !result.isError;
    });
    await assertOutsideUntouched();
    assert.ok(!(await fs.readdir(layout.allowed)).some((n) => n.endsWith('.tmp')), 'no temporary file may be left behind');
    assert.ok(stats.swaps > 0, JSON.stringify(stats));
  });

  it("move race: the source's parent is swapped for a symlink to the secret's directory (GHSA-7m4x-rv66-mxhh)", async () => {
    const box = path.join(layout.allowed, 'box');
    await fs.mkdir(box);
    await fs.writeFile(path.join(box, 'secret.txt'), 'decoy');
    const stats = await race(box, path.join(layout.outside, 'dir'), async (i) => {
      const result = await call(conn.client, 'move_file', { source: path.join(box, 'secret.txt'), destination: path.join(layout.allowed, `loot-${i}.txt`) });
      return !result.isError;
    });
    await assertOutsideUntouched();
    for (const name of (await fs.readdir(layout.allowed)).filter((n) => n.startsWith('loot-'))) {
      assert.equal(await fs.readFile(path.join(layout.allowed, name), 'utf8'), 'decoy', `${name} must be the decoy, never the secret`);
    }
    assert.ok(stats.swaps > 0, JSON.stringify(stats));
  });

  it('move race: the source file is swapped for a symlink to the secret', async () => {
    const source = path.join(layout.allowed, 'msource.txt');
    await fs.writeFile(source, 'decoy');
    await race(source, layout.secretFile, async (i) => {
      const result = await call(conn.client, 'move_file', { source, destination: path.join(layout.allowed, `mloot-${i}.txt`) });
      // Put a decoy back so later attempts have something to move; the swapper may be mid-toggle.
      if (!result.isError) await fs.writeFile(source, 'decoy', { flag: 'wx' }).catch(() => {});
      return !result.isError;
    });
    await assertOutsideUntouched();
    for (const name of (await fs.readdir(layout.allowed)).filter((n) => n.startsWith('mloot-'))) {
      const moved = path.join(layout.allowed, name);
      if ((await fs.lstat(moved)).isSymbolicLink()) {
        // The swapper's own link, moved as a link (rename never follows it). The secret stayed where it
        // was (checked above) and reading through the moved link is refused.
        const read = await call(conn.client, 'read_text_file', { path: moved });
        assert.equal(read.isError, true);
        assert.ok(!JSON.stringify(read).includes(SECRET));
      } else {
        assert.equal(await fs.readFile(moved, 'utf8'), 'decoy');
      }
    }
  });

  it('growth race: a file appended to while read_media_file reads it comes back whole as it was at one moment, never torn', async () => {
    // Byte i of the file is pattern(i) whatever its length, so every answer must be a prefix of the pattern
    // with the length it reports: a read that stopped at fstat's size while the file grew past it, or pooled
    // bytes never filled, shows as a wrong byte or a size that does not match.
    const limit = 16 * 1024 * 1024;
    const whole = Buffer.allocUnsafe(limit);
    for (let i = 0; i < limit; i++) whole[i] = (i * 7 + 3) & 0xff;
    const pattern = (from: number, length: number) => whole.subarray(from, from + length);
    const file = path.join(layout.allowed, 'growing.png');
    const start = 256 * 1024;
    await fs.writeFile(file, pattern(0, start));
    let length = start;
    let appending = true;
    const appender = (async () => {
      const step = 16 * 1024;
      while (appending && length + step <= limit) {
        await fs.appendFile(file, pattern(length, step));
        length += step;
      }
    })();
    const sizes = new Set<number>();
    try {
      for (let i = 0; i < 150; i++) {
        const result = await call(conn.client, 'read_media_file', { path: file });
        assert.ok(!result.isError, textOf(result));
        const bytes = Buffer.from((result.content[0] as { data: string }).data, 'base64');
        assert.equal((result.structuredContent as { size: number }).size, bytes.length, `call ${i}: the size said`);
        assert.ok(bytes.length >= start, `call ${i}: shorter than the file ever was`);
        assert.ok(bytes.equals(pattern(0, bytes.length)), `call ${i}: not the file's first ${bytes.length} bytes`);
        sizes.add(bytes.length);
      }
    } finally {
      appending = false;
      await appender;
    }
    // The reads did see the file at different lengths (else there was no race to survive).
    assert.ok(sizes.size > 1, `every read saw ${[...sizes].join(', ')} bytes`);
  });
});
