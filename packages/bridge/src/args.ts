import type { WireChoice } from 'mcp-msgpack-transport';

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
  command: string;
  args: string[];
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

  -h, --help               this text
  --version                print the version`;

/** Parses the command line; throws an Error with a message fit for the user on anything malformed. */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BridgeArgs {
  const headers: Record<string, string> = {};
  const allowedHosts: string[] = [];
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
      default:
        if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
        if (url !== undefined) throw new Error(`one server URL only (got ${url} and ${arg})`);
        url = arg;
    }
  }

  if (serve) {
    if (url !== undefined) throw new Error(`--serve takes no URL (got ${url}); the stdio server's command goes after --`);
    if (!command || command.length === 0) throw new Error('--serve needs the stdio server to run after --, e.g. --serve -- npx some-mcp-server');
    return { mode: 'serve', host, port, shared, allowedHosts, command: command[0]!, args: command.slice(1) };
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

function parsePositive(text: string, option: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n <= 0) throw new Error(`${option} ${text}: expected a positive number of milliseconds`);
  return n;
}
