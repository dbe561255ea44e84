#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { PassThrough } from 'node:stream';
import { isLoopbackAddress, StdioMsgpackServerTransport } from 'mcp-msgpack-transport';
import { parseArgs, USAGE, type BridgeArgs, type RemoteArgs, type ServeArgs } from './args.js';
import { oneLine, stderrLog as log } from './log.js';
import { LoopbackOAuthProvider } from './remote/oauth.js';
import { HostToRemote } from './remote/relay.js';
import { watchParent } from './serve/parent-watch.js';
import { serveStdioServer } from './serve/serve.js';

async function main(): Promise<void> {
  let args: BridgeArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    log(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (args.mode === 'help') return void process.stderr.write(`${USAGE}\n`);
  if (args.mode === 'version') {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    return void process.stdout.write(`mcp-msgpack-bridge ${manifest.version}\n`);
  }
  if (args.mode === 'serve') return serve(args);
  return relay(args);
}

async function relay(args: RemoteArgs): Promise<void> {
  const oauth = args.oauth ? await LoopbackOAuthProvider.start(args.oauth.port, log, args.oauth.openBrowser) : undefined;
  // The host reads its stdio with an SDK's transport, which drops the connection on a line over 10 MiB: the
  // host transport replaces such an answer with one saying why (maxJsonLineBytes' default). Its input ends
  // only once what the host asked before closing stdin is answered.
  const hostInput = new PassThrough();
  process.stdin.pipe(hostInput, { end: false });
  const host = new StdioMsgpackServerTransport(hostInput, process.stdout, { wire: 'json', nativeBytes: false });
  const bridge = new HostToRemote(host, {
    url: args.url,
    headers: args.headers,
    wire: args.wire,
    nativeBytes: args.nativeBytes,
    authProvider: oauth as never,
    oauth,
    requestTimeoutMs: args.requestTimeoutMs,
    log,
    exit: (code) => {
      oauth?.close();
      // Let the last answer to the host leave before the process ends.
      process.stdout.write('', () => process.exit(code));
    },
  });
  const started = bridge.start();
  // Once the transport has read the last lines (after start; its delivery runs in microtasks, done before
  // setImmediate), wait for their answers, then let it see the end.
  process.stdin.once('end', () => {
    void started
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => bridge.answered())
      .finally(() => hostInput.end());
  });
  await started;
}

async function serve(args: ServeArgs): Promise<void> {
  const running = await serveStdioServer(args, log).catch((error: unknown) => {
    log(`cannot listen on ${args.host}:${args.port}: ${oneLine(error)}`);
    process.exit(1);
  });
  // Every child is in a process group of its own (so that ending it ends what it started): no terminal
  // signal reaches them, the bridge ends them itself, whichever way it goes.
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: ending every stdio server`);
    void running.close().finally(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGHUP', () => stop('SIGHUP'));
  process.on('exit', () => running.killChildrenNow());
  watchParent(() => stop('the process that started the bridge has exited'));
  // The URL on stdout (one line) so scripts and tests can find the port when 0 was asked for.
  process.stdout.write(`${running.url.href}\n`);
  const auth = args.tokens.length > 0 ? `bearer token required (${args.tokens.length} accepted)` : 'no token asked for';
  log(
    `serving ${[args.command, ...args.args].join(' ')} on ${running.url.href} (Streamable HTTP, MessagePack or JSON; ${args.shared ? 'one shared child' : 'one child per session'}; at most ${args.maxSessions} sessions; ${auth})`,
  );
  if (args.tokens.length === 0 && !isLoopbackAddress(args.host)) log(`warning: listening on ${args.host} with no token: anyone who reaches it can start stdio servers (--token-env)`);
}

main().catch((error: unknown) => {
  log(`fatal: ${oneLine(error)}`);
  process.exit(1);
});
