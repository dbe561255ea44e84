import type { WireChoice } from 'mcp-msgpack-transport';
import { availableParallelism, totalmem } from 'node:os';

/** Below the 60 s a stock SDK host waits for a request, so the host sees the bridge's error and not its own "Request timed out". */
export const DEFAULT_REQUEST_TIMEOUT_MS = 55_000;

export interface RemoteArgs {
  mode: 'remote';
  url: URL;
  headers: Record<string, string>;
  wire: WireChoice;
  nativeBytes: boolean;
  requestTimeoutMs: number;
  /** OAuth through the SDK's provider, with the authorization redirect landing on this loopback port (0: any). */
  oauth?: { port: number; openBrowser: boolean };
}

export interface ServeArgs {
  mode: 'serve';
  host: string;
  port: number;
  /** One child for every session instead of one per session. */
  shared: boolean;
  /** Extra Host header values to accept (beyond loopback names), as the handler's allowedHosts. */
  allowedHosts: string[];
  /** Origin header values a browser page may call from, beside the loopback origins (always checked). */
  allowedOrigins: string[];
  /** Bearer tokens a client must present (none: no check); the principal names whose token it is. */
  tokens: { principal: string; token: string }[];
  /** Most sessions (each a child unless --shared) open or starting at once; children never exceed it. */
  maxSessions: number;
  /** A session with nothing in flight and no stream open this long is ended, its child with it. */
  idleTimeoutMs: number;
  /** A client request the child has not answered after this long gets a JSON-RPC error (and the child a cancel). */
  requestTimeoutMs: number;
  /** A child that has not answered initialize after this long: a JSON-RPC error, and the child is ended. */
  initTimeoutMs: number;
  /** Bytes a session may have waiting for its child's stdin; past it a POST gets 503 and Retry-After. */
  maxQueueBytes: number;
  /** The same over every session at once: what stalled children can cost the bridge in all. */
  maxTotalQueueBytes: number;
  /** Notifications held for a session whose GET stream is closed or not being read; the rest are counted and dropped. */
  maxHeldNotifications: number;
  command: string;
  args: string[];
}

/** The environment variable whose comma-separated tokens --serve requires when it is set. */
export const TOKENS_ENV = 'MCP_MSGPACK_BRIDGE_TOKENS';
export const DEFAULT_SERVE_REQUEST_TIMEOUT_MS = 50_000;
export const DEFAULT_INIT_TIMEOUT_MS = 30_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_QUEUE_BYTES = 8 * 1024 * 1024;
/**
 * Bytes waiting for children's stdin over all sessions. A child that reads holds its share only while its
 * pipe takes it, so the total binds when children stall, and then each queued byte costs the bridge about two
 * (the parsed message, and the line half written to the pipe) on top of the garbage of reading the POSTs:
 * 32 MiB keeps that near the bridge's own size (50-75 MiB) and still lets four sessions fill their queues,
 * or eight POSTs of the 4 MiB body limit wait at once. Without it, the bound was --max-sessions x 8 MiB
 * (up to 2 GiB).
 */
export const DEFAULT_MAX_TOTAL_QUEUE_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_HELD_NOTIFICATIONS = 1000;

/**
 * Children are processes: 8 per core, and no more than one per 256 MiB of memory (a Node MCP server idles at
 * 60-130 MiB of RSS), at least 4 and at most 256.
 */
export function defaultMaxSessions(cores = availableParallelism(), memoryBytes = totalmem()): number {
  return Math.max(4, Math.min(256, cores * 8, Math.floor(memoryBytes / (256 * 1024 * 1024))));
}

export type BridgeArgs = RemoteArgs | ServeArgs | { mode: 'help' } | { mode: 'version' };

export const USAGE = `Usage:
  mcp-msgpack-bridge URL [options]                 stdio JSON (the host) -> Streamable HTTP, MessagePack (the server)
  mcp-msgpack-bridge --serve [options] -- CMD ARGS  Streamable HTTP, MessagePack or JSON -> a stdio JSON MCP server

Host to remote:
  --header 'Name: value'   sent with every request (repeatable; \${VAR} is replaced from the environment)
  --bearer TOKEN           Authorization: Bearer TOKEN
  --bearer-env VAR         the same, with the token read from environment variable VAR
  --oauth                  authorize through the server's OAuth (browser, callback on 127.0.0.1)
  --oauth-port N           the callback's port (default: any free one)
  --no-browser             with --oauth: only print the authorization URL on stderr
  --wire auto|msgpack|json auto (default): MessagePack, JSON when the server speaks only JSON
  --no-native-bytes        do not ask for media as native bytes
  --request-timeout MS     answer a host request with an error after MS ms without a reply (default ${DEFAULT_REQUEST_TIMEOUT_MS})

Serve (reverse):
  --serve                  serve the stdio server given after -- over Streamable HTTP
  --host HOST              address to listen on (default 127.0.0.1)
  --port N                 port (default 0: a free one; the URL is printed on stdout)
  --shared                 one child for all sessions (default: one child per session)
  --allowed-host NAME      accept this Host header too (repeatable; needed when not on loopback)
  --allowed-origin ORIGIN  accept this Origin header (repeatable; default: loopback origins only)
  --token-env VAR          require Authorization: Bearer <the value of VAR> (repeatable, one client each;
                           ${TOKENS_ENV}=a,b,... does the same and is read whenever it is set)
  --max-sessions N         sessions (children, unless --shared) at once (default ${defaultMaxSessions()} on this machine)
  --idle-timeout MS        end a session, and its child, idle this long (default ${DEFAULT_IDLE_TIMEOUT_MS})
  --request-timeout MS     a call the child leaves unanswered gets a JSON-RPC error (serve default ${DEFAULT_SERVE_REQUEST_TIMEOUT_MS})
  --init-timeout MS        a child that does not answer initialize in time is ended (default ${DEFAULT_INIT_TIMEOUT_MS})
  --max-queue-bytes N      bytes a session may have waiting for its child (default ${DEFAULT_MAX_QUEUE_BYTES}); past it 503
  --max-total-queue-bytes N
                           the same over all sessions at once (default ${DEFAULT_MAX_TOTAL_QUEUE_BYTES}); past it 503

  -h, --help               this text
  --version                print the version`;

/** Parses the command line; throws an Error with a message fit for the user on anything malformed. */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BridgeArgs {
  const headers: Record<string, string> = {};
  const allowedHosts: string[] = [];
  const allowedOrigins: string[] = [];
  const tokenVars: string[] = [];
  let maxSessions = defaultMaxSessions();
  let idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  let initTimeoutMs = DEFAULT_INIT_TIMEOUT_MS;
  let maxQueueBytes = DEFAULT_MAX_QUEUE_BYTES;
  let maxTotalQueueBytes = DEFAULT_MAX_TOTAL_QUEUE_BYTES;
  let url: string | undefined;
  let serve = false;
  let host = '127.0.0.1';
  let port = 0;
  let shared = false;
  let wire: WireChoice = 'auto';
  let nativeBytes = true;
  let requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  let oauth: { port: number; openBrowser: boolean } | undefined;
  let openBrowser = true;
  let command: string[] | undefined;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const next = argv[i + 1];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      i++;
      return next;
    };
    switch (arg) {
      case '-h':
      case '--help':
        return { mode: 'help' };
      case '--version':
        return { mode: 'version' };
      case '--':
        command = argv.slice(i + 1);
        i = argv.length;
        break;
      case '--header': {
        const [name, text] = splitHeader(value());
        headers[name] = checkHeaderValue(`--header ${name}`, expand(text, env));
        break;
      }
      case '--bearer':
        headers['Authorization'] = checkHeaderValue('--bearer', `Bearer ${value()}`);
        break;
      case '--bearer-env': {
        const name = value();
        const token = env[name];
        if (!token) throw new Error(`--bearer-env ${name}: the environment variable ${name} is not set`);
        headers['Authorization'] = checkHeaderValue(`--bearer-env ${name}`, `Bearer ${token}`);
        break;
      }
      case '--oauth':
        oauth = { port: oauth?.port ?? 0, openBrowser };
        break;
      case '--oauth-port':
        oauth = { port: parsePort(value(), arg), openBrowser };
        break;
      case '--no-browser':
        openBrowser = false;
        break;
      case '--wire': {
        const choice = value();
        if (choice !== 'auto' && choice !== 'msgpack' && choice !== 'json') throw new Error(`--wire ${choice}: expected auto, msgpack or json`);
        wire = choice;
        break;
      }
      case '--no-native-bytes':
        nativeBytes = false;
        break;
      case '--request-timeout':
        requestTimeoutMs = parsePositive(value(), arg);
        break;
      case '--serve':
        serve = true;
        break;
      case '--host':
        host = value();
        break;
      case '--port':
        port = parsePort(value(), arg);
        break;
      case '--shared':
        shared = true;
        break;
      case '--allowed-host':
        allowedHosts.push(value());
        break;
      case '--allowed-origin':
        allowedOrigins.push(parseOrigin(value()));
        break;
      case '--token-env':
        tokenVars.push(value());
        break;
      case '--max-sessions':
        maxSessions = parsePositive(value(), arg, 'sessions');
        break;
      case '--idle-timeout':
        idleTimeoutMs = parsePositive(value(), arg);
        break;
      case '--init-timeout':
        initTimeoutMs = parsePositive(value(), arg);
        break;
      case '--max-queue-bytes':
        maxQueueBytes = parsePositive(value(), arg, 'bytes');
        break;
      case '--max-total-queue-bytes':
        maxTotalQueueBytes = parsePositive(value(), arg, 'bytes');
        break;
      default:
        if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
        if (url !== undefined) throw new Error(`one server URL only (got ${url} and ${arg})`);
        url = arg;
    }
  }

  if (serve) {
    if (url !== undefined) throw new Error(`--serve takes no URL (got ${url}); the stdio server's command goes after --`);
    if (!command || command.length === 0) throw new Error('--serve needs the stdio server to run after --, e.g. --serve -- npx some-mcp-server');
    // --request-timeout is shared with the host-to-remote mode, whose default is longer.
    const ownTimeout = argv.slice(0, argv.indexOf('--')).includes('--request-timeout');
    return {
      mode: 'serve',
      host,
      port,
      shared,
      allowedHosts,
      allowedOrigins,
      tokens: serveTokens(tokenVars, env),
      maxSessions,
      idleTimeoutMs,
      requestTimeoutMs: ownTimeout ? requestTimeoutMs : DEFAULT_SERVE_REQUEST_TIMEOUT_MS,
      initTimeoutMs,
      maxQueueBytes,
      maxTotalQueueBytes,
      maxHeldNotifications: DEFAULT_MAX_HELD_NOTIFICATIONS,
      command: command[0]!,
      args: command.slice(1),
    };
  }
  if (command) throw new Error('a command after -- is only for --serve');
  if (url === undefined) throw new Error('no server URL given');
  if (oauth) oauth.openBrowser = openBrowser;
  return { mode: 'remote', url: parseServerUrl(url), headers, wire, nativeBytes, requestTimeoutMs, oauth };
}

function parseServerUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${JSON.stringify(text)} is not a URL (expected e.g. https://example.com/mcp)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${text}: only http: and https: URLs are served`);
  return url;
}

function splitHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon > 0 ? text.slice(0, colon).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new Error(`--header ${JSON.stringify(text)}: expected 'Name: value'`);
  if (OWN_HEADERS.has(name.toLowerCase())) {
    throw new Error(`--header ${JSON.stringify(text)}: the bridge sets ${name} itself (it follows the wire: MessagePack or JSON), so it cannot be given`);
  }
  return [name, text.slice(colon + 1).trim()];
}

/** Headers the transport derives for each request: a value given here would be overridden without a word. */
const OWN_HEADERS = new Set(['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'content-length']);

/**
 * A header value HTTP can carry (RFC 9110: visible Latin-1 text, spaces and tabs inside): checked at start,
 * after ${VAR} expansion, so a bad value names --header rather than failing the first request.
 */
function checkHeaderValue(option: string, value: string): string {
  const bad = /[^\t\x20-\x7e\x80-\xff]/.exec(value);
  if (bad) {
    const point = bad[0].codePointAt(0)!;
    const code = `U+${point.toString(16).toUpperCase().padStart(4, '0')}`;
    const what = bad[0] === '\n' || bad[0] === '\r' ? 'a line break' : point > 0xff ? `${code}, not a Latin-1 character` : `the control character ${code}`;
    throw new Error(`${option}: the value holds ${what}, which an HTTP header cannot carry`);
  }
  return value;
}

/** ${VAR} from the environment: desktop configs cannot always quote a secret into args, but can set env. */
function expand(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const found = env[name];
    if (found === undefined) throw new Error(`--header: the environment variable ${name} is not set`);
    return found;
  });
}

function parsePort(text: string, option: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`${option} ${text}: not a port number (0-65535)`);
  return port;
}

function parsePositive(text: string, option: string, unit = 'milliseconds'): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n <= 0) throw new Error(`${option} ${text}: expected a positive number of ${unit}`);
  return n;
}

/** `scheme://host[:port]`, as browsers send it. */
function parseOrigin(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (!url || url.origin !== text) throw new Error(`--allowed-origin ${text}: expected an origin such as https://app.example.com (scheme, host, optional port)`);
  return text;
}

/** The tokens of every --token-env variable (its name the principal) and of MCP_MSGPACK_BRIDGE_TOKENS when set. */
function serveTokens(vars: readonly string[], env: NodeJS.ProcessEnv): { principal: string; token: string }[] {
  const tokens = vars.map((name) => {
    const token = env[name]?.trim();
    if (!token) throw new Error(`--token-env ${name}: the environment variable ${name} is not set`);
    return { principal: name, token };
  });
  const list = env[TOKENS_ENV];
  if (list !== undefined) {
    const listed = list.split(',').map((token) => token.trim());
    if (listed.some((token) => token === '')) throw new Error(`${TOKENS_ENV}: an empty token (expected tokens separated by commas)`);
    for (const [i, token] of listed.entries()) tokens.push({ principal: `${TOKENS_ENV}[${i}]`, token });
  }
  return tokens;
}
