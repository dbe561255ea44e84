/**
 * DNS-rebinding protection. A page on evil.example whose name is made to resolve to 127.0.0.1 can reach a
 * loopback server, but its requests still carry `Host: evil.example` (and its Origin): refusing unknown
 * hosts and origins closes that door.
 */
import { TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';

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

/** A refusal for the Host or Origin: a Refusal of responses.ts (not imported: it imports these options). */
export interface HostRefusal {
  readonly status: 403 | 400;
  readonly code: number;
  readonly message: string;
  readonly data?: { reason: string };
}

/**
 * The refusal of a request for its Host or Origin, or undefined to serve it: 403 for one that DNS-rebinding
 * protection does not allow (checkHostAndOrigin), else 400 for a Host that cannot be the authority of the
 * request's URL (SPEC.md 9.4), whether or not the checks are on. Such a Host (`a b`, `[::1`, `localhost:99999`,
 * `localhost:80@evil.com`, an empty one) reaches the endpoint when the checks are off; refused here, it never
 * gets to a `new URL()` built from it, which would throw (a 500) on one runtime and read another host on the
 * next. A request without a Host (a fetch handler's own Request) is served: its URL is its own.
 */
export function hostRefusal(options: HostCheckOptions, headers: { get(name: string): string | null }, localAddress: string | undefined): HostRefusal | undefined {
  const host = headers.get('host');
  const refused = checkHostAndOrigin(options, host, headers.get('origin'), localAddress);
  if (refused) return { status: 403, code: TRANSPORT_ERROR, message: refused };
  if (host !== null && !isAuthority(host.toLowerCase())) {
    return { status: 400, code: TRANSPORT_ERROR, message: `Bad Request: Invalid Host header: ${host}`, data: { reason: 'invalid-host' } };
  }
  return undefined;
}

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

/** The port of a plain host[:port] (null when it has none), or undefined when the host is not one. */
function plainHostPort(host: string): string | null | undefined {
  const plain = PLAIN_HOST.exec(host);
  if (!plain || (plain[1] !== undefined && Number(plain[1]) > 65_535)) return undefined;
  return plain[1] ?? null;
}

/**
 * Whether a Host can be the authority of an http URL: a plain host[:port] that the URL parser also takes (it
 * refuses some the grammar lets through: `999999999999`, `1.2.3.256`, `[:::]`).
 */
const isAuthority = (host: string): boolean => plainHostPort(host) !== undefined && URL.canParse(`http://${host}/`);

function hostAllowed(host: string, allowed: string[]): boolean {
  const port = plainHostPort(host);
  if (port === undefined) return false;
  if (allowed.includes(host)) return true;
  const name = port === null ? host : host.slice(0, host.length - port.length - 1);
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
