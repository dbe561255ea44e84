import { isRecord } from '../../../jsonrpc/is-record.js';
import type { JSONRPCMessage } from '../../../mcp/types.js';
import { decodeHeaderValue, nameSource } from '../../modern-headers.js';
import { HEADER_MISMATCH } from '../../../jsonrpc/error-codes.js';
import { trimmed } from '../exchange/era.js';
import type { Refusal } from '../exchange/responses.js';

/**
 * SEP-2243's headers that mirror a request's params (MCP 2026-07-28 over HTTP), so a gateway can route on
 * them without reading the body (the only way to route a MessagePack body): the standard `Mcp-Name` (the
 * field modern-headers.ts's table names per method) and the custom `Mcp-Param-<Name>` (a tool's
 * `inputSchema` marks a property with `x-mcp-header: "<Name>"`). The server must refuse a request whose
 * mirrored headers are missing or disagree with the body: a gateway may have acted on the header, the
 * server acts on the body. The revision and method headers decide the era, so exchange/era.ts checks them.
 */

interface HeaderSource {
  get(name: string): string | null;
}

/**
 * Checks a request's `Mcp-Name` against the body field it mirrors: required when the body has that field,
 * and standing for the same string (a `=?base64?…?=` sentinel decoded first). Undefined when they agree or
 * the method has no such field, else the 400 / -32020 refusal SDK v2 answers with.
 */
export function nameHeaderRefusal(message: JSONRPCMessage, headers: HeaderSource): Refusal | undefined {
  if (!('method' in message && 'id' in message)) return undefined;
  const source = nameSource(message.method, message.params);
  if (source === undefined) return undefined;
  const nameHeader = trimmed(headers.get('mcp-name'));
  if (nameHeader === undefined) {
    if (source.value === undefined) return undefined;
    return mismatch('(missing)', `the body carries params.${source.field}="${source.value}" but the required Mcp-Name header is absent`);
  }
  const name = decodeHeaderValue(nameHeader);
  if (name === undefined) return mismatch(nameHeader, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  if (source.value !== undefined && name !== source.value) {
    return mismatch(nameHeader, `the body carries params.${source.field}="${source.value}" but the Mcp-Name header names "${name}"`);
  }
  return undefined;
}

/** One `x-mcp-header` declaration: where its argument sits and the header that mirrors it. */
export interface ParamHeaderDeclaration {
  readonly path: readonly string[];
  readonly header: string;
  readonly type: string | undefined;
}

/**
 * The declarations of one input schema. Only a chain of `properties` can carry one (the spec: statically
 * reachable); whether the schema's declarations are valid is for clients to judge (they drop an invalid
 * tool), the server checks whatever it declares.
 */
export function paramHeaderDeclarations(inputSchema: unknown): ParamHeaderDeclaration[] {
  const found: ParamHeaderDeclaration[] = [];
  const visit = (schema: unknown, path: string[]): void => {
    if (!isRecord(schema)) return;
    const header = schema['x-mcp-header'];
    if (path.length > 0 && typeof header === 'string' && header.length > 0) {
      found.push({ path, header, type: typeof schema.type === 'string' ? schema.type : undefined });
    }
    if (isRecord(schema.properties)) {
      for (const [key, child] of Object.entries(schema.properties)) visit(child, [...path, key]);
    }
  };
  visit(inputSchema, []);
  return found;
}

/**
 * Checks a call's `Mcp-Param-*` headers against its arguments: for each declaration whose argument is
 * present (not null), the header must be there and stand for the same value (a `=?base64?…?=` sentinel is
 * decoded first; integers compare as numbers, so `42.0` matches 42). Undefined when all agree, else the
 * 400 / -32020 refusal SDK v2 answers with, naming the header.
 */
export function paramHeaderRefusal(declarations: readonly ParamHeaderDeclaration[], args: unknown, headers: HeaderSource): Refusal | undefined {
  for (const declaration of declarations) {
    const value = argumentAt(args, declaration.path);
    const expected = headerText(value);
    if (expected === undefined) continue;
    const name = `Mcp-Param-${declaration.header}`;
    const where = declaration.path.join('.');
    const raw = headers.get(name);
    if (raw === null) return mismatch(name, `the body carries ${where}=${JSON.stringify(value)} but the ${name} header is absent`);
    // Optional whitespace around a field value is not part of it (RFC 9110 §5.5); edge whitespace in a value
    // travels in the base64 sentinel.
    const decoded = decodeHeaderValue(raw.trim());
    if (decoded === undefined) return mismatch(name, `the ${name} header carries an invalid Base64 sentinel value`);
    if (!sameValue(decoded, expected, value)) {
      return mismatch(name, `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(value)}`);
    }
  }
  return undefined;
}

function argumentAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * The header text a client sends for an argument (strings as they are, numbers in decimal, booleans as
 * `true`/`false`); undefined for null, absent, or a value no header can carry (objects, bytes, non-finite
 * numbers, unsafe integers), for which no header is expected.
 */
function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  if (typeof value === 'bigint' && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return value.toString();
  return undefined;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

function sameValue(decoded: string, expected: string, value: unknown): boolean {
  if ((typeof value === 'number' || typeof value === 'bigint') && DECIMAL.test(decoded)) return Number(decoded) === Number(value);
  return decoded === expected;
}

function mismatch(header: string, body: string): Refusal {
  return { status: 400, code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${body}`, data: { mismatch: { header, body } } };
}
