/**
 * DNS-rebinding protection. A page on evil.example whose name is made to resolve to 127.0.0.1 can reach a
 * loopback server, but its requests still carry `Host: evil.example` (and its Origin): refusing unknown
 * hosts and origins closes that door.
 */

export interface HostCheckOptions {
  /** Host header values accepted (`name` matches any port, `name:port` only that port). */
  allowedHosts?: string[];
  /** Origin header values accepted when an Origin is sent (`scheme://name[:port]`). */
  allowedOrigins?: string[];
  /**
   * true: check Host and Origin against the lists above (or the loopback names when a list is not given).
   * false: no checks. Default: checks on for requests that arrive on a loopback address, off otherwise.
   */
  enableDnsRebindingProtection?: boolean;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address === 'localhost' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** Returns the reason to refuse the request (403), or undefined to accept it. */
export function checkHostAndOrigin(options: HostCheckOptions, host: string | null, origin: string | null, localAddress: string | undefined): string | undefined {
  const enabled = options.enableDnsRebindingProtection ?? isLoopbackAddress(localAddress);
  if (!enabled) return undefined;
  const hosts = options.allowedHosts ?? LOOPBACK_NAMES;
  if (hosts && hosts.length > 0 && (!host || !hostAllowed(host.toLowerCase(), hosts))) return `Invalid Host header: ${host}`;
  const origins = options.allowedOrigins;
  if (origin) {
    if (origins && origins.length > 0) {
      if (!origins.includes(origin)) return `Invalid Origin header: ${origin}`;
    } else if (!options.allowedHosts && !originIsLoopback(origin)) {
      return `Invalid Origin header: ${origin}`;
    }
  }
  return undefined;
}

// A Host is a name or IPv4 address, or an IPv6 literal in brackets, then an optional port (RFC 9110). Anything
// else (userinfo as in `localhost:80@evil.com`, paths, spaces, a second colon) is refused outright, so no
// lenient split can read an allowed name out of a host the browser actually meant.
const PLAIN_HOST = /^(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?$/;

function hostAllowed(host: string, allowed: string[]): boolean {
  const plain = PLAIN_HOST.exec(host);
  if (!plain || (plain[1] !== undefined && Number(plain[1]) > 65_535)) return false;
  if (allowed.includes(host)) return true;
  const name = plain[1] === undefined ? host : host.slice(0, host.length - plain[1].length - 1);
  return allowed.includes(name);
}

// An Origin as browsers send it (RFC 6454 serialization): `http` or `https`, `://`, a plain host[:port] as
// above, nothing after. Not new URL(), which reads a loopback name out of `ftp://localhost`,
// `http://localhost/path` or `http://127.1`, none of which a browser sends as an Origin.
const PLAIN_ORIGIN = /^https?:\/\/(.+)$/;

function originIsLoopback(origin: string): boolean {
  const plain = PLAIN_ORIGIN.exec(origin.toLowerCase());
  return plain !== null && hostAllowed(plain[1]!, LOOPBACK_NAMES);
}
