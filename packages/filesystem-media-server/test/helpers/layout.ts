// A temporary directory layout for attack and behaviour tests:
//   <root>/allowed/            the only allowed directory (files, a subdirectory, a PNG)
//   <root>/allowed_evil/       a prefix sibling, with a secret
//   <root>/outside/            outside everything, with the secret and a directory of its own
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const SECRET = 'TOP-SECRET-do-not-leak-4711';

export interface Layout {
  root: string;
  allowed: string;
  evil: string;
  outside: string;
  secretFile: string;
  cleanup(): Promise<void>;
}

/** A tiny valid PNG (1x1, one pixel) with some trailing bytes so its size is not trivial. */
export const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

export async function makeLayout(): Promise<Layout> {
  // realpath: on macOS the temp dir is itself behind a symlink.
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fsms-')));
  const allowed = path.join(root, 'allowed');
  const evil = path.join(root, 'allowed_evil');
  const outside = path.join(root, 'outside');
  for (const dir of [allowed, path.join(allowed, 'sub'), path.join(allowed, 'sub', 'deeper'), evil, outside, path.join(outside, 'dir')]) {
    await fs.mkdir(dir, { recursive: true });
  }
  const secretFile = path.join(outside, 'secret.txt');
  await fs.writeFile(secretFile, SECRET);
  await fs.writeFile(path.join(outside, 'dir', 'secret.txt'), SECRET);
  await fs.writeFile(path.join(evil, 'secret.txt'), SECRET);
  await fs.writeFile(path.join(allowed, 'hello.txt'), 'hello\nworld\n');
  await fs.writeFile(path.join(allowed, 'lines.txt'), Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  await fs.writeFile(path.join(allowed, 'code.ts'), 'function greet() {\n  return "hi";\n}\n\nexport const answer = 42;\n');
  await fs.writeFile(path.join(allowed, 'sub', 'notes.md'), '# Notes\n\n- one\n- two\n');
  await fs.writeFile(path.join(allowed, 'sub', 'deeper', 'data.json'), '{"a":1}\n');
  await fs.writeFile(path.join(allowed, 'pixel.png'), PNG_BYTES);
  await fs.writeFile(path.join(allowed, 'sound.wav'), Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'));
  await fs.writeFile(path.join(allowed, 'blob.bin'), Buffer.from([0, 1, 2, 3, 254, 255]));
  return {
    root,
    allowed,
    evil,
    outside,
    secretFile,
    cleanup: () => fs.rm(root, { recursive: true, force: true }),
  };
}

/** Asserts nothing outside the allowed directory changed: the secret files hold the secret, and no stray files appeared. */
export async function outsideUntouched(layout: Layout): Promise<{ ok: boolean; detail: string }> {
  const secretNow = await fs.readFile(layout.secretFile, 'utf8').catch(() => '<missing>');
  const outsideEntries = (await fs.readdir(layout.outside)).sort().join(',');
  const innerEntries = (await fs.readdir(path.join(layout.outside, 'dir'))).sort().join(',');
  const evilEntries = (await fs.readdir(layout.evil)).sort().join(',');
  const ok = secretNow === SECRET && outsideEntries === 'dir,secret.txt' && innerEntries === 'secret.txt' && evilEntries === 'secret.txt';
  return { ok, detail: `secret=${secretNow} outside=[${outsideEntries}] outside/dir=[${innerEntries}] evil=[${evilEntries}]` };
}
