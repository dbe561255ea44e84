// Runs the HTTP cases against a server's URL: each case in a session of its own (SPEC.md 9.4's session states:
// none, initialized, initialized-native, uninitialized, forged, empty, deleted), then, where the case says, a ping proving the
// session goes on. Requests go through the raw client (http-client.mjs).
import { confirmsNativeBytes, initializeRequest, materialize, payloadOf, PROTOCOL_VERSION } from './corpus.mjs';
import { checkResponses, show } from './checks.mjs';
import { httpRequest } from './http-client.mjs';
import { bodyMessages } from './messages.mjs';

const MSGPACK_ACCEPT = 'application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream';

/** The request a case's `request` stands for: defaults, then its headers (a null value removes one; a list repeats it). */
function buildRequest(url, request, session, vars) {
  const defaults = {
    host: `${url.hostname}:${url.port}`,
    accept: MSGPACK_ACCEPT,
    'content-type': 'application/msgpack',
    'mcp-protocol-version': PROTOCOL_VERSION,
    connection: 'close',
  };
  if (session !== undefined) defaults['mcp-session-id'] = session;
  const merged = { ...defaults, ...materialize(request.headers ?? {}, vars) };
  const source = request.body ?? { none: true };
  const body = payloadOf(source, vars);
  if (body && !('content-length' in (request.headers ?? {}))) merged['content-length'] = String(body.length);
  const headers = [];
  for (const [name, value] of Object.entries(merged)) {
    if (value === null) continue;
    for (const each of Array.isArray(value) ? value : [value]) headers.push([name, each]);
  }
  const method = request.method ?? 'POST';
  // A declared Content-Length with no body (413 from the header alone): nothing follows the head.
  return { method, headers, body: source.none ? null : body };
}

const post = (url, message, session, vars) => httpRequest(url, buildRequest(url, { body: { message } }, session, vars));

/** A session in the state a case asks for: the Mcp-Session-Id to send (undefined: none). */
async function openSession(url, state, vars) {
  if (state === undefined || state === 'none') return undefined;
  if (state === 'forged') return 'probe-forged-session-0000000000000000';
  if (state === 'empty') return '';
  const native = state === 'initialized-native';
  const reply = await post(url, initializeRequest('probe-init', native), undefined, vars);
  const session = reply.headers['mcp-session-id']?.[0];
  if (reply.status !== 200 || !session) throw new Error(`initialize failed: ${reply.status} ${show(bodyMessages(reply.headers['content-type']?.[0], reply.body))}`);
  if (native && !confirmsNativeBytes(bodyMessages(reply.headers['content-type']?.[0], reply.body)[0]?.result)) throw new Error('native bytes offered in initialize on msgpack-v1, not confirmed (8.1)');
  if (state === 'uninitialized') return session;
  const ack = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session, vars);
  if (ack.status !== 202) throw new Error(`notifications/initialized got ${ack.status}`);
  if (state === 'deleted') {
    const ended = await httpRequest(url, buildRequest(url, { method: 'DELETE', headers: { 'content-type': null }, body: { none: true } }, session, vars));
    if (ended.status !== 200) throw new Error(`DELETE got ${ended.status}`);
  }
  return session;
}

/** Every HTTP case against `url`: [{ id, rule, pass, detail }]. */
export async function runHttpCases(url, cases, vars) {
  const results = [];
  for (const c of cases) {
    const held = [];
    let session;
    try {
      session = await openSession(url, c.session, vars);
      // `waitMs`: the session left as it is that long first (a deadline of the server's passes meanwhile).
      if (c.waitMs) await new Promise((resolve) => setTimeout(resolve, c.waitMs));
      for (const hold of c.hold ?? []) held.push(await httpRequest(url, buildRequest(url, hold, session, vars), { streamHeadersOnly: true, keep: true }));
      const request = c.request ?? { body: c.body };
      const reply = await httpRequest(url, buildRequest(url, request, session, vars), { streamHeadersOnly: (request.method ?? 'POST') === 'GET' });
      let detail = checkReply(c.expect, reply, vars);
      if (detail === null && c.after === 'session-goes-on') {
        const ping = await post(url, { jsonrpc: '2.0', id: 'probe-after', method: 'ping' }, session, vars);
        const messages = bodyMessages(ping.headers['content-type']?.[0], ping.body);
        if (ping.status !== 200 || !messages.some((m) => m.id === 'probe-after' && 'result' in m)) detail = `the session did not go on: a ping after the case got ${ping.status} ${show(messages)}`;
      }
      results.push({ id: c.id, rule: c.rule, pass: detail === null, detail });
    } catch (error) {
      results.push({ id: c.id, rule: c.rule, pass: false, detail: String(error.message ?? error) });
    } finally {
      for (const each of held) each.socket.destroy();
      if (session) await httpRequest(url, buildRequest(url, { method: 'DELETE', headers: { 'content-type': null }, body: { none: true } }, session, vars)).catch(() => {});
    }
  }
  return results;
}

/** status / statusNot, headers (each listed token in the header's value), then the body's JSON-RPC (checks.mjs). */
function checkReply(expect, reply, vars) {
  if (expect.status !== undefined && reply.status !== expect.status) return `expected status ${expect.status}, got ${reply.status} ${describeBody(reply)}`;
  if (expect.statusNot?.includes(reply.status)) return `expected a status other than ${expect.statusNot.join(', ')}, got ${reply.status} ${describeBody(reply)}`;
  for (const [name, tokens] of Object.entries(expect.headers ?? {})) {
    const value = (reply.headers[name] ?? []).join(', ').toLowerCase();
    const missing = tokens.filter((token) => !value.includes(token));
    if (missing.length > 0) return `expected ${name} to list ${missing.join(', ')}, got ${JSON.stringify(value)}`;
  }
  if (expect.reply || expect.replies || expect.error) {
    let messages;
    try {
      messages = bodyMessages(reply.headers['content-type']?.[0], reply.body);
    } catch (error) {
      return `the body does not decode as its Content-Type (${reply.headers['content-type']?.[0]}): ${error.message}`;
    }
    return checkResponses(expect, messages, vars.dir);
  }
  return null;
}

function describeBody(reply) {
  try {
    return show(bodyMessages(reply.headers['content-type']?.[0], reply.body));
  } catch {
    return `(${reply.body.length} bytes of ${reply.headers['content-type']?.[0]})`;
  }
}
