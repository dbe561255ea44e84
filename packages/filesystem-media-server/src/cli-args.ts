export interface CliOptions {
  directories: string[];
  /** host and port for Streamable HTTP; undefined means stdio. */
  http?: { host: string; port: number };
  maxMediaBytes?: number;
  help: boolean;
  version: boolean;
}

export const USAGE = `Usage: mcp-filesystem-media-server [--http HOST:PORT] [--max-media-bytes N] DIR...

Serves the files below DIR... over MCP (the official filesystem server's 14 tools, plus file:// resources).
  (default)              stdio, answering JSON or MessagePack clients as they speak
  --http HOST:PORT       Streamable HTTP on HOST:PORT (PORT alone means 127.0.0.1:PORT)
  --max-media-bytes N    largest file read_media_file / resources/read return (default 66060288 = 63 MiB)
  -h, --help             this text
  --version              print the version
Directories may also come from the client as MCP roots, which replace the list.`;

/** Parses the command line; throws an Error with a message fit for the user on anything malformed. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = { directories: [], help: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const next = argv[i + 1];
      // `--http --max-media-bytes 5` lacks the value: the next option is not it.
      if (next === undefined || next.startsWith('--')) throw new Error(MISSING_VALUE[arg] ?? `${arg} needs a value`);
      i++;
      return next;
    };
    if (arg === '--') {
      options.directories.push(...argv.slice(i + 1));
      break;
    } else if (arg === '-h' || arg === '--help') options.help = true;
    else if (arg === '--version') options.version = true;
    else if (arg === '--http') options.http = parseHostPort(value());
    else if (arg.startsWith('--http=')) options.http = parseHostPort(arg.slice('--http='.length));
    else if (arg === '--max-media-bytes') options.maxMediaBytes = parseByteCount(value());
    else if (arg.startsWith('--max-media-bytes=')) options.maxMediaBytes = parseByteCount(arg.slice('--max-media-bytes='.length));
    else if (arg.startsWith('-') && arg !== '-') throw new Error(`unknown option ${arg}`);
    else options.directories.push(arg);
  }
  return options;
}

const MISSING_VALUE: Record<string, string> = {
  '--http': '--http needs a port: --http PORT or --http HOST:PORT (e.g. --http 8080)',
  '--max-media-bytes': '--max-media-bytes needs a number of bytes (e.g. --max-media-bytes 10485760)',
};

/** PORT or HOST:PORT ([IPV6]:PORT), each mistake with its own message. */
function parseHostPort(text: string): { host: string; port: number } {
  if (text === '') throw new Error(MISSING_VALUE['--http']);
  const match = /^(?:\[([^\]]+)\]|([^:]*)):([^:]*)$/.exec(text);
  const host = (match && (match[1] || match[2])) || '127.0.0.1';
  const port = match ? match[3]! : text;
  const given = `--http ${JSON.stringify(text)}`;
  if (port === '') throw new Error(`${given}: no port after the host (HOST:PORT, e.g. --http 127.0.0.1:8080)`);
  if (!/^\d+$/.test(port)) throw new Error(`${given}: ${JSON.stringify(port)} is not a port number (PORT or HOST:PORT, e.g. --http 8080)`);
  if (Number(port) > 65535) throw new Error(`${given}: port ${port} is out of range (0-65535; 0 picks a free port)`);
  return { host, port: Number(port) };
}

function parseByteCount(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw new Error(`--max-media-bytes needs a whole number of bytes, got ${JSON.stringify(text)}`);
  return n;
}
