// A server process the measurements start and watch: started until it prints its URL, its CPU time read
// by the bench's reader (every thread, /proc), stopped and waited for.
import { spawn } from 'node:child_process';
import { readProcessCpuNs } from 'mcp-msgpack-bench';

/** CPU time of a process (user + system, every thread), in ms (Linux). */
export function cpuMs(pid) {
  return (readProcessCpuNs(pid) ?? Number.NaN) / 1e6;
}

/**
 * Starts `command args`, an HTTP server that prints its URL as its first line (the media server's CLI with
 * --http, the bridge with --serve), in environment `env`: its pid, URL and port, and a stop that resolves once it
 * has exited.
 */
export function startUrlPrinter(command, args, what, env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} printed no URL within 20 s`)), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      const url = new URL(out.split('\n')[0].trim());
      resolve({ pid: child.pid, url, port: Number(url.port), stop: () => stopChild(child) });
    });
    child.stderr.resume();
    child.once('exit', (code) => reject(new Error(`${what} exited (${code})`)));
  });
}

/** SIGTERM, resolved once the process has exited (at once if it already has). */
function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}
