import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import type { Environment } from './results.js';

const PACKAGES = [
  'mcp-msgpack-bench',
  'mcp-msgpack-transport',
  'mcp-filesystem-media-server',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/server-filesystem',
  'msgpackr',
  '@msgpack/msgpack',
  'tinybench',
];

/** The machine, OS, runtimes and package versions, for the header of every report. */
export function describeEnvironment(runtimeVersions: Record<string, string>): Environment {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() || os.arch(),
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} (${os.platform()}/${os.arch()})`,
    runtimes: runtimeVersions,
    packages: packageVersions(),
  };
}

export function currentRuntime(): { name: 'node' | 'bun'; version: string } {
  const bun = (process.versions as Record<string, string | undefined>).bun;
  return bun ? { name: 'bun', version: bun } : { name: 'node', version: process.versions.node };
}

/** This package's own version (for --version and the report header). */
export function benchVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function packageVersions(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const versions: Record<string, string> = {};
  for (const name of PACKAGES) {
    try {
      versions[name] = name === 'mcp-msgpack-bench' ? benchVersion() : (JSON.parse(readFileSync(manifestOf(require, name), 'utf8')) as { version: string }).version;
    } catch {
      versions[name] = 'not installed';
    }
  }
  return versions;
}

/** A package's package.json, also for packages whose exports map does not list it. */
function manifestOf(require: NodeJS.Require, name: string): string {
  let start: string;
  try {
    start = require.resolve(`${name}/package.json`);
    // Some exports maps send "package.json" to a nested one (e.g. dist/esm/package.json, no version).
    if ((JSON.parse(readFileSync(start, 'utf8')) as { name?: string }).name === name) return start;
  } catch {
    start = require.resolve(name);
  }
  {
    let dir = dirname(start);
    for (let i = 0; i < 5; i++) {
      const candidate = join(dir, 'package.json');
      try {
        if ((JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === name) return candidate;
      } catch {
        // not here; go up
      }
      dir = dirname(dir);
    }
    throw new Error(`no package.json for ${name}`);
  }
}
