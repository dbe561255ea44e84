// The generated part of the probe corpus (fixtures/probes/README.md, "Generated cases"): the hostile classes
// of SPEC.md 4, 5, 9.2 and 9.4 crossed with where they stand and what carries them, so every class is tried
// in every position instead of one hand-written example each. Every case states one outcome, asserted the
// same for every server (fixtures/probes/expected-failures.json names the known exceptions).
const hexOf = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const utf8 = new TextEncoder();

/** A MessagePack str (fixstr or str8), as hex. */
function str(text) {
  const bytes = utf8.encode(text);
  if (bytes.length < 32) return `${(0xa0 | bytes.length).toString(16)}${hexOf(bytes)}`;
  return `d9${bytes.length.toString(16).padStart(2, '0')}${hexOf(bytes)}`;
}
/** A non-negative int under 65,536 (positive fixint, uint8 or uint16), as hex. */
function int(n) {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new Error(`generated.mjs: no int form here for ${n}`);
  if (n < 128) return n.toString(16).padStart(2, '0');
  return n < 256 ? `cc${n.toString(16).padStart(2, '0')}` : `cd${n.toString(16).padStart(4, '0')}`;
}

/**
 * A tools/call request for `echo` whose `arguments.text` is `fault` (hex): the top-level keys before params
 * (jsonrpc, id, method) are read before the fault, so 5.2 says the id MUST be answered. `extra` appends hex
 * after the whole value (bytes after it).
 */
function requestAround(id, fault, extra = '') {
  return `84 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${int(id)} ${str('method')} ${str('tools/call')} ${str('params')} 82 ${str('name')} ${str('echo')} ${str('arguments')} 81 ${str('text')} ${fault}${extra}`;
}
/** The same fault in a result response (5.2 rule 3: a response is never answered; its id fails a pending request of the receiver's, if any). */
function responseAround(id, fault) {
  // result.content.x: the fault at depth 4, as in requestAround (the depth faults count on it).
  return `83 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${int(id)} ${str('result')} 81 ${str('content')} 81 ${str('x')} ${fault}`;
}
/** The same fault in a notification (no id: nothing to answer, or one error; 5.2). */
function notificationAround(fault) {
  return `83 ${str('jsonrpc')} ${str('2.0')} ${str('method')} ${str('notifications/message')} ${str('params')} 82 ${str('level')} ${str('info')} ${str('data')} 81 ${str('x')} ${fault}`;
}

const nested = (open, depth, inner) => `${open.repeat(depth)}${inner}`;

/**
 * SPEC.md 4.1's constructs, each a value standing where a string is expected, with the code 4.3's table gives
 * (all -32700: the payload could not be decoded).
 */
const DECODE_FAULTS = [
  // 4.1.1: every ext form, including the timestamp type (-1) msgpack libraries decode by default
  ['fixext1', 'd4 05 00', 'forbidden-type'],
  ['fixext2', 'd5 05 0000', 'forbidden-type'],
  ['fixext4', 'd6 05 00000000', 'forbidden-type'],
  ['fixext8', 'd7 05 0000000000000000', 'forbidden-type'],
  ['fixext16', `d8 05 ${'00'.repeat(16)}`, 'forbidden-type'],
  ['ext8', 'c7 01 05 00', 'forbidden-type'],
  ['ext16', 'c8 0001 05 00', 'forbidden-type'],
  ['ext32', 'c9 00000001 05 00', 'forbidden-type'],
  ['ext-timestamp32', 'd6 ff 00000000', 'forbidden-type'],
  ['ext-timestamp96', 'c7 0c ff 000000000000000000000000', 'forbidden-type'],
  ['ext-header-cut', 'c7', 'forbidden-type'],
  // 4.1.2
  ['c1', 'c1', 'forbidden-type'],
  // 4.1.3: bin where native bytes are not in force (and never at a `text` member)
  ['bin8', 'c4 01 00', 'forbidden-type'],
  ['bin16', 'c5 0001 00', 'forbidden-type'],
  ['bin32', 'c6 00000001 00', 'forbidden-type'],
  // 4.1.4: a map key of every non-str type
  ...[
    ['int', '01'],
    ['negative-int', 'ff'],
    ['uint64', 'cf 0000000000000001'],
    ['nil', 'c0'],
    ['true', 'c3'],
    ['false', 'c2'],
    ['float64', 'cb 3ff8000000000000'],
    ['float32-nan', 'ca 7fc00000'],
    ['array', '90'],
    ['map', '80'],
    ['map32-claiming-much', 'df 7fffffff'],
  ].map(([name, key]) => [`key-${name}`, `81 ${key} 01`, 'non-string-key']),
  ['key-bin', '81 c4 01 61 01', 'forbidden-type'],
  ['key-ext', '81 d4 05 00 01', 'forbidden-type'],
  // 4.1.5: __proto__ as a key, at two depths
  ['proto-key', `81 ${str('__proto__')} 01`, 'forbidden-key'],
  ['proto-key-deeper', `81 ${str('a')} 81 ${str('__proto__')} 80`, 'forbidden-key'],
  // 4.1.6: the message map is depth 1, params 2, arguments 3, the text value 4: 125 more levels is 129
  ['too-deep-arrays', nested('91', 126, 'c0'), 'too-deep'],
  ['too-deep-maps', nested(`81 ${str('a')}`, 126, 'c0'), 'too-deep'],
  ['too-deep-mixed', nested(`91 81 ${str('a')}`, 63, 'c0'), 'too-deep'],
  // 4.1.7: a count past the bytes left
  ['array16-count-past-end', 'dc 0010 c0', 'malformed-msgpack'],
  ['array32-count-past-end', 'dd 7fffffff', 'malformed-msgpack'],
  ['map16-count-past-end', `de 0010 ${str('a')} c0`, 'malformed-msgpack'],
  ['map32-count-past-end', 'df 7fffffff', 'malformed-msgpack'],
  // 4.1.8: each kind of value cut short where the payload ends
  ['truncated-fixstr', 'a5 6162', 'malformed-msgpack'],
  ['truncated-str8', 'd9 05 6162', 'malformed-msgpack'],
  ['truncated-str16', 'da 0005 6162', 'malformed-msgpack'],
  ['truncated-str32', 'db 00000005 6162', 'malformed-msgpack'],
  ['truncated-str8-length', 'd9', 'malformed-msgpack'],
  ['truncated-uint16', 'cd 00', 'malformed-msgpack'],
  ['truncated-uint32', 'ce 0000', 'malformed-msgpack'],
  ['truncated-uint64', 'cf 000000', 'malformed-msgpack'],
  ['truncated-int8', 'd0', 'malformed-msgpack'],
  ['truncated-int64', 'd3 00', 'malformed-msgpack'],
  ['truncated-float32', 'ca 0000', 'malformed-msgpack'],
  ['truncated-float64', 'cb 00000000', 'malformed-msgpack'],
  ['truncated-array16-count', 'dc 00', 'malformed-msgpack'],
  ['truncated-map16-count', 'de 00', 'malformed-msgpack'],
  // 4.1.10: every non-finite float
  ['float32-nan', 'ca 7fc00000', 'non-finite-number'],
  ['float32-infinity', 'ca 7f800000', 'non-finite-number'],
  ['float32-minus-infinity', 'ca ff800000', 'non-finite-number'],
  ['float64-nan', 'cb 7ff8000000000000', 'non-finite-number'],
  ['float64-infinity', 'cb 7ff0000000000000', 'non-finite-number'],
  ['float64-minus-infinity', 'cb fff0000000000000', 'non-finite-number'],
  ['float64-nan-in-array', '92 01 cb 7ff8000000000001', 'non-finite-number'],
];

/**
 * Decoded, but not a JSON-RPC message (4.2, -32600 not-json-rpc), each with its id readable (answered by id)
 * or not (`null`: nothing, or one error).
 */
const SHAPE_FAULTS = [
  ['jsonrpc-1.0', (id) => `84 ${str('jsonrpc')} ${str('1.0')} ${str('id')} ${int(id)} ${str('method')} ${str('ping')} ${str('params')} 80`, true],
  ['jsonrpc-number', (id) => `83 ${str('jsonrpc')} 02 ${str('id')} ${int(id)} ${str('method')} ${str('ping')}`, true],
  ['jsonrpc-missing', (id) => `82 ${str('id')} ${int(id)} ${str('method')} ${str('ping')}`, true],
  ['method-number', (id) => `83 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${int(id)} ${str('method')} 05`, true],
  ['params-string', (id) => `84 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${int(id)} ${str('method')} ${str('ping')} ${str('params')} ${str('x')}`, true],
  ['params-nil', (id) => `84 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${int(id)} ${str('method')} ${str('ping')} ${str('params')} c0`, true],
  ['unknown-member', (id) => `84 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${int(id)} ${str('method')} ${str('ping')} ${str('extra')} 01`, true],
  ['meta-not-map', (id) => `84 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${int(id)} ${str('method')} ${str('ping')} ${str('params')} 81 ${str('_meta')} 01`, true],
  ['progress-token-bool', (id) => `84 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${int(id)} ${str('method')} ${str('ping')} ${str('params')} 81 ${str('_meta')} 81 ${str('progressToken')} c3`, true],
  ['id-bool', () => `83 ${str('jsonrpc')} ${str('2.0')} ${str('id')} c3 ${str('method')} ${str('ping')}`, false],
  ['id-map', () => `83 ${str('jsonrpc')} ${str('2.0')} ${str('id')} 80 ${str('method')} ${str('ping')}`, false],
  ['id-non-integral-float', () => `83 ${str('jsonrpc')} ${str('2.0')} ${str('id')} cb 401e000000000000 ${str('method')} ${str('ping')}`, false],
  ['id-over-2^53', () => `83 ${str('jsonrpc')} ${str('2.0')} ${str('id')} cf 0020000000000000 ${str('method')} ${str('ping')}`, false],
  ['top-level-array', () => `91 ${str('ping')}`, false],
  ['top-level-string', () => str('ping'), false],
  ['top-level-nil', () => 'c0', false],
];

/** 3.4: integral floats as ids are the integers (answered under the integer). */
const FLOAT_IDS = [
  ['float64-7', 'cb 401c000000000000', 7],
  ['float32-7', 'ca 40e00000', 7],
  ['float64-zero', 'cb 0000000000000000', 0],
  ['float64-negative-3', 'cb c008000000000000', -3],
  ['float64-2^53-minus-1', 'cb 433fffffffffffff', 2 ** 53 - 1],
];
const pingWithId = (idHex) => `83 ${str('jsonrpc')} ${str('2.0')} ${str('id')} ${idHex} ${str('method')} ${str('ping')}`;

/** The refusals as payloads: [name, hex, { code, reason, id?, response? }]. */
function refusals() {
  const out = [];
  let id = 101;
  for (const [name, fault, reason] of DECODE_FAULTS) {
    out.push([`request/${name}`, requestAround(id, fault), { code: -32700, reason, id: id++ }]);
    out.push([`notification/${name}`, notificationAround(fault), { code: -32700, reason }]);
    out.push([`response/${name}`, responseAround(id++, fault), { code: -32700, reason, response: true }]);
  }
  out.push(['request/trailing-byte', requestAround(id, str('x'), ' c0'), { code: -32700, reason: 'malformed-msgpack', id: id++ }]);
  out.push(['request/trailing-request', requestAround(id, str('x'), ` ${pingWithId('01')}`), { code: -32700, reason: 'malformed-msgpack', id: id++ }]);
  for (const [name, build, readable] of SHAPE_FAULTS) {
    out.push([`shape/${name}`, build(id), readable ? { code: -32600, reason: 'not-json-rpc', id: id++ } : { code: -32600, reason: 'not-json-rpc' }]);
  }
  return out;
}

/** stdio (5.2): answered by id when it was read, else nothing or one error; the connection goes on either way. */
function stdioCases() {
  const cases = [];
  for (const [name, hex, want] of refusals()) {
    cases.push({
      id: `gen/${name}`,
      rule: want.response
        ? `5.2: a response refused (${want.reason}) is not answered: it answers no request of the server's; the connection goes on`
        : `5.2 / 4.3: refused ${want.code} ${want.reason}${want.id === undefined ? '' : ', answered by its id'}; the connection goes on`,
      frame: { hex },
      expect: want.response ? { silent: true } : want.id === undefined ? { errorIfAny: { code: want.code, reason: want.reason } } : { error: { id: want.id, code: want.code, reason: want.reason } },
    });
  }
  for (const [name, hex, id] of FLOAT_IDS) cases.push({ id: `gen/id-${name}`, rule: '3.4: an integral float id is the integer', frame: { hex: pingWithId(hex) }, expect: { reply: { id } } });
  return cases;
}

/** HTTP (9.4): 400 with 4.3's code and data.reason, in an initialized session that goes on. */
function httpRefusalCases() {
  const cases = [];
  for (const [name, hex, want] of refusals()) {
    // A batch element's fault is the body's (4.3: "each of its elements is a message here"), but a top-level
    // array of one str is a batch of one non-message, as the shape says: the same code either way.
    cases.push({
      id: `gen/${name}`,
      rule: `9.4 / 4.3: 400 ${want.code} ${want.reason}; the session goes on`,
      session: 'initialized',
      request: { body: { hex } },
      expect: { status: 400, error: { code: want.code, reason: want.reason } },
      after: 'session-goes-on',
    });
  }
  for (const [name, hex, id] of FLOAT_IDS)
    cases.push({ id: `gen/id-${name}`, rule: '3.4: an integral float id is the integer', session: 'initialized', request: { body: { hex: pingWithId(hex) } }, expect: { status: 200, reply: { id } } });
  return cases;
}

const initialize = (id) => ({ message: { $initialize: id } });
const ping = (id) => ({ message: { jsonrpc: '2.0', id, method: 'ping' } });

/** SPEC.md 9.4's Host and Origin rules: exact names, any port, nothing that only starts like loopback. */
function hostCases() {
  const hosts = [
    ['127.0.0.1', 200],
    ['localhost', 200],
    ['LOCALHOST:{port}', 200],
    ['[::1]:{port}', 200],
    ['localhost:1', 200],
    ['evil.com', 403],
    ['evil.com:{port}', 403],
    ['localhost.evil.com:{port}', 403],
    ['127.0.0.1.evil.com:{port}', 403],
    ['localhost:{port}.evil.com', 403],
    ['127.0.0.1:{port}evil', 403],
    ['localhost:{port}@evil.com', 403],
    ['localhost@evil.com:{port}', 403],
    ['evil.com@localhost:{port}', 403],
    ['localhost:{port}/evil', 403],
    ['localhost:{port}:{port}', 403],
    ['localhost:99999', 403],
    ['localhost:', 403],
    ['[::1]evil:{port}', 403],
    ['[::2]:{port}', 403],
    ['localhost%2eevil.com', 403],
    ['', 403],
  ];
  const origins = [
    ['http://localhost', 200],
    ['http://127.0.0.1:{port}', 200],
    ['https://localhost:8443', 200],
    ['http://[::1]:{port}', 200],
    ['HTTP://LOCALHOST:{port}', 200],
    ['http://evil.com', 403],
    ['http://localhost.evil.com', 403],
    ['http://127.0.0.1.evil.com:{port}', 403],
    ['http://localhost:{port}.evil.com', 403],
    ['http://localhost:{port}@evil.com', 403],
    ['http://localhost@evil.com', 403],
    ['http://evil.com#localhost', 403],
    ['null', 403],
    ['file://', 403],
    // Not a serialized origin (RFC 6454), though a URL parser reads a loopback name out of each.
    ['ftp://localhost', 403],
    ['http://localhost/path', 403],
    ['http://localhost:{port}/', 403],
    ['http://127.1', 403],
    ['http://0x7f.1', 403],
  ];
  const cases = [];
  hosts.forEach(([host, status], i) => {
    cases.push({ id: `gen/host/${host || '(empty)'}`, rule: `9.4: Host ${JSON.stringify(host)}: ${status}`, session: 'none', request: { headers: { host }, body: initialize(`host-${i}`) }, expect: { status } });
  });
  origins.forEach(([origin, status], i) => {
    cases.push({ id: `gen/origin/${origin}`, rule: `9.4: Origin ${JSON.stringify(origin)}: ${status}`, session: 'none', request: { headers: { origin }, body: initialize(`origin-${i}`) }, expect: { status } });
  });
  return cases;
}

/** SPEC.md 9.2: which Accept gets which reply, and Content-Type on the request. */
function negotiationCases() {
  const MSGPACK = ['application/msgpack'];
  const JSON_TYPE = ['application/json'];
  const accepts = [
    ['application/msgpack, application/vnd.mcp-msgpack.stream', MSGPACK],
    ['application/vnd.msgpack, application/vnd.mcp-msgpack.stream', MSGPACK],
    ['APPLICATION/MSGPACK, APPLICATION/VND.MCP-MSGPACK.STREAM', MSGPACK],
    ['application/msgpack;v=1, application/vnd.mcp-msgpack.stream', MSGPACK],
    ['application/json, text/event-stream', JSON_TYPE],
    ['application/json, text/event-stream, application/msgpack, application/vnd.mcp-msgpack.stream', JSON_TYPE],
    ['application/msgpack', 406],
    ['application/vnd.mcp-msgpack.stream', 406],
    ['text/event-stream', 406],
    ['application/*', 406],
    ['*/*', 406],
    [null, 406],
  ];
  const cases = [];
  accepts.forEach(([accept, want], i) => {
    const id = 300 + i;
    const expect = typeof want === 'number' ? { status: want } : { status: 200, headers: { 'content-type': want }, reply: { id } };
    cases.push({ id: `gen/accept/${accept ?? '(none)'}`, rule: `9.2: POST with Accept ${JSON.stringify(accept)}`, session: 'initialized', request: { headers: { accept }, body: ping(id) }, expect });
  });
  const types = [
    ['application/msgpack', 200],
    ['application/msgpack; v=1', 200],
    ['Application/MsgPack', 200],
    ['application/vnd.msgpack', 200],
    ['application/msgpack; v=2', 415],
    ['application/x-msgpack', 415],
    ['application/octet-stream', 415],
    ['text/plain', 415],
    [null, 415],
  ];
  types.forEach(([type, status], i) => {
    const id = 330 + i;
    cases.push({
      id: `gen/content-type/${type ?? '(none)'}`,
      rule: `9.2: a MessagePack body labelled ${JSON.stringify(type)}: ${status}`,
      session: 'initialized',
      request: { headers: { 'content-type': type }, body: ping(id) },
      expect: status === 200 ? { status, reply: { id } } : { status },
    });
  });
  cases.push({
    id: 'gen/content-type/application/json; charset=utf-8',
    rule: '9.2: a JSON body, its type with a charset',
    session: 'initialized',
    request: { headers: { 'content-type': 'application/json; charset=utf-8' }, body: { json: { jsonrpc: '2.0', id: 350, method: 'ping' } } },
    expect: { status: 200, reply: { id: 350 } },
  });
  return cases;
}

const GET_STREAM = { method: 'GET', headers: { accept: 'application/vnd.mcp-msgpack.stream', 'content-type': null }, body: { none: true } };

/** SPEC.md 9.4's session rules: header forms, states, initialize and the order of the first messages, Last-Event-ID. */
function sessionCases() {
  const cases = [];
  for (const [state, status, code] of [
    ['forged', 404, -32001],
    ['deleted', 404, -32001],
    ['empty', 400, undefined],
    ['none', 400, -32000],
  ]) {
    cases.push({ id: `gen/session/${state}/post`, rule: `9.4: a POST in a session ${state}: ${status}`, session: state, request: { body: ping(400) }, expect: code ? { status, error: { code } } : { status } });
    cases.push({ id: `gen/session/${state}/get`, rule: `9.4: a GET stream in a session ${state}: ${status}`, session: state, request: GET_STREAM, expect: { status } });
    if (state !== 'none' && state !== 'empty')
      cases.push({
        id: `gen/session/${state}/delete`,
        rule: `9.4: a DELETE of a session ${state}: ${status}`,
        session: state,
        request: { method: 'DELETE', headers: { 'content-type': null }, body: { none: true } },
        expect: { status },
      });
  }
  cases.push({ id: 'gen/session/initialize-in-uninitialized', rule: '9.4: a second initialize, before initialized: 400', session: 'uninitialized', request: { body: initialize(401) }, expect: { status: 400 } });
  cases.push({
    id: 'gen/session/initialize-with-forged-session',
    rule: '9.4: an initialize naming a session the server never issued is not served (4xx)',
    session: 'forged',
    request: { body: initialize(402) },
    expect: { statusNot: [200, 500] },
  });
  for (const method of ['tools/call', 'resources/list', 'prompts/list']) {
    const params = method === 'tools/call' ? { name: 'echo', arguments: { text: 'x' } } : {};
    cases.push({
      id: `gen/before-initialized/${method}`,
      rule: '9.4: a request other than ping before notifications/initialized: 400 -32000 not-initialized',
      session: 'uninitialized',
      request: { body: { message: { jsonrpc: '2.0', id: 403, method, params } } },
      expect: { status: 400, error: { code: -32000, reason: 'not-initialized' } },
    });
  }
  for (const [name, value] of [
    ['sse', 'text/event-stream'],
    ['frames', 'application/vnd.mcp-msgpack.stream'],
  ]) {
    for (const eventId of ['0', 'unknown-stream_5', 'x'.repeat(200)]) {
      cases.push({
        id: `gen/last-event-id/${name}/${eventId.slice(0, 20)}`,
        rule: '9.4: GET with Last-Event-ID and no event store: no server failure',
        session: 'initialized',
        request: { method: 'GET', headers: { accept: value, 'content-type': null, 'last-event-id': eventId }, body: { none: true } },
        expect: { statusNot: [500] },
      });
    }
  }
  return cases;
}

/** SPEC.md 9.1 / 9.4: batches of 1, 2, 100 and 101; what a batch may not hold. */
function batchCases() {
  const cases = [];
  for (const size of [1, 2, 100]) {
    const ids = Array.from({ length: size }, (_, i) => 500 + i);
    cases.push({
      id: `gen/batch/${size}-pings`,
      rule: '9.1 / 9.4: a batch of up to 100 is served, a result for each request',
      session: 'initialized',
      request: { body: { message: ids.map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })) } },
      expect: { status: 200, replies: ids },
    });
  }
  const note = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
  cases.push({ id: 'gen/batch/100-notifications', rule: '9.4: a batch of notifications only: 202', session: 'initialized', request: { body: { message: { $array: [note, 100] } } }, expect: { status: 202 } });
  cases.push({
    id: 'gen/batch/101-pings',
    rule: '9.4: a batch over 100: 400 -32600',
    session: 'initialized',
    request: { body: { message: { $array: [{ jsonrpc: '2.0', id: 1, method: 'ping' }, 101] } } },
    expect: { status: 400, error: { code: -32600 } },
    after: 'session-goes-on',
  });
  cases.push({
    id: 'gen/batch/request-and-notification',
    rule: '9.4: a batch of a request and a notification: the request answered',
    session: 'initialized',
    request: { body: { message: [{ jsonrpc: '2.0', id: 610, method: 'ping' }, note] } },
    expect: { status: 200, replies: [610] },
  });
  cases.push({
    id: 'gen/batch/float-id',
    rule: '3.4: an integral float id in a batch is the integer',
    session: 'initialized',
    request: { body: { hex: `92 ${pingWithId('cb 4083100000000000')} ${pingWithId('0a')}` } },
    expect: { status: 200, replies: [610, 10] },
  });
  cases.push({
    id: 'gen/batch/duplicate-ids',
    rule: '5.3: the same id twice in one POST: 400 -32600 duplicate-id',
    session: 'initialized',
    request: {
      body: {
        message: [
          { jsonrpc: '2.0', id: 620, method: 'ping' },
          { jsonrpc: '2.0', id: 620, method: 'ping' },
        ],
      },
    },
    expect: { status: 400, error: { code: -32600, reason: 'duplicate-id' } },
    after: 'session-goes-on',
  });
  cases.push({
    id: 'gen/batch/initialize-in-batch',
    rule: '9.4: an initialize in a batch: 400 -32600',
    session: 'none',
    request: { body: { message: [{ $initialize: 630 }, { jsonrpc: '2.0', id: 631, method: 'ping' }] } },
    expect: { status: 400, error: { code: -32600 } },
  });
  return cases;
}

/** Every generated case: { stdio, http }. */
export function generatedCases() {
  return { stdio: stdioCases(), http: [...httpRefusalCases(), ...hostCases(), ...negotiationCases(), ...sessionCases(), ...batchCases()] };
}
