export interface CliOptions {
  directories: string[];
  /** host and port for Streamable HTTP; undefined means stdio. */
  http?: { host: string; port: number };
  maxMediaBytes?: number;
  help: boolean;
}

export const USAGE = `Usage: mcp-filesystem-media-server [--http HOST:PORT] [--max-media-bytes N] DIR...

Serves the files below DIR... over MCP (the official filesystem server's 14 tools, plus file:// resources).
  (default)              stdio, answering JSON or MessagePack clients as they speak
  --http HOST:PORT       Streamable HTTP on HOST:PORT (PORT alone means 127.0.0.1:PORT)
  --max-media-bytes N    largest file read_media_file / resources/read return (default 66060288 = 63 MiB)
  -h, --help             this text
Directories may also come from the client as MCP roots, which replace the list.`;

/** Parses the command line; throws an Error with a message fit for the user on anything malformed. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = { directories: [], help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--') {
      options.directories.push(...argv.slice(i + 1));
      break;
    } else if (arg === '-h' || arg === '--help') options.help = true;
    else if (arg === '--http') options.http = parseHostPort(value());
    else if (arg.startsWith('--http=')) options.http = parseHostPort(arg.slice('--http='.length));
    else if (arg === '--max-media-bytes') options.maxMediaBytes = parseByteCount(value());
    else if (arg.startsWith('--max-media-bytes=')) options.maxMediaBytes = parseByteCount(arg.slice('--max-media-bytes='.length));
    else if (arg.startsWith('-') && arg !== '-') throw new Error(`unknown option ${arg}`);
    else options.directories.push(arg);
  }
  return options;
}

function parseHostPort(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text) ?? /^()()(\d+)$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--http needs HOST:PORT or PORT, got ${JSON.stringify(text)}`);
  return { host: match[1] || match[2] || '127.0.0.1', port };
}

function parseByteCount(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw new Error(`--max-media-bytes needs a whole number of bytes, got ${JSON.stringify(text)}`);
  return n;
}
