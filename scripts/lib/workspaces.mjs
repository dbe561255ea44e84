// The workspace's packages as the release sees them: which are publishable (not private), which of them
// each depends on, and so which tarballs a user installs together. Read from the root package.json's
// `workspaces`, so a package added there (packages/bridge) is released without touching the scripts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

/** The workspace folders, a trailing `/*` expanded (npm's own workspace globs are not needed here). */
function workspaceDirs() {
  const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return workspaces
    .flatMap((pattern) => {
      if (!pattern.endsWith('/*')) return [pattern];
      const parent = pattern.slice(0, -2);
      return readdirSync(join(root, parent)).map((name) => `${parent}/${name}`);
    })
    .filter((dir) => existsSync(join(root, dir, 'package.json')));
}

/**
 * @returns {Array<{ dir: string, name: string, version: string, bin: string[], tarball: string, needs: string[] }>}
 *   every publishable package; `tarball` is npm pack's file name, `needs` the names of the publishable
 *   workspace packages it depends on, transitively (their tarballs must be installed with it until they
 *   are on the registry).
 */
export function publishablePackages() {
  const manifests = workspaceDirs().map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) }));
  const publishable = manifests.filter(({ manifest }) => !manifest.private);
  const names = new Set(publishable.map(({ manifest }) => manifest.name));
  const direct = new Map(publishable.map(({ manifest }) => [manifest.name, Object.keys(manifest.dependencies ?? {}).filter((d) => names.has(d))]));
  const closure = (name, seen = new Set()) => {
    for (const dep of direct.get(name) ?? []) if (!seen.has(dep)) closure(dep, seen.add(dep));
    return seen;
  };
  return publishable.map(({ dir, manifest }) => ({
    dir,
    name: manifest.name,
    version: manifest.version,
    bin: Object.keys(typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {})),
    tarball: `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`,
    needs: [...closure(manifest.name)],
  }));
}

/** The tarballs to name in one `npm install` for `pkg`: its own first, then those it needs. */
export function tarballsFor(pkg, packages) {
  return [pkg.tarball, ...pkg.needs.map((name) => packages.find((p) => p.name === name).tarball)];
}
