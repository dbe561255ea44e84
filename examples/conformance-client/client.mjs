// The conformance CLIENT of this repository: the MCP conformance runner (`conformance client --command ...`)
// starts it once per scenario with the scenario's mock server URL as its last argument and the scenario in
// MCP_CONFORMANCE_SCENARIO (its context in MCP_CONFORMANCE_CONTEXT, the revision in
// MCP_CONFORMANCE_PROTOCOL_VERSION). It plays a host: an SDK Client driving either this project's
// HttpMsgpackClientTransport (`--transport ours`) or, as the control, the SDK's own
// StreamableHTTPClientTransport (`--transport sdk`), with OAuth done either outside the transport by a fetch
// wrapper (`--auth fetch`, as the SDK's own conformance client does) or by the transport itself through
// `authProvider` + `finishAuth` (`--auth provider`, what the transport README documents and the bridge uses).
// The SDK generation follows the revision (`--sdk v1|v2` overrides): 2025-11-25 runs SDK v1's Client and
// transport, 2026-07-28 SDK v2's. tools/conformance/client-run.mjs (`npm run conformance:client`) runs the scenarios for both transports and compares.
//   node examples/conformance-client/client.mjs --transport ours|sdk --auth fetch|provider [--sdk v1|v2] <server-url>
// Exits 0 when the scenario's client flow completed, 1 with the error on stderr otherwise (scenarios that
// expect the client to refuse, e.g. a wrong issuer, count that refusal as a pass).

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const serverUrl = new URL(args.at(-1));
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
const modern = revision >= '2026-07-28';
const transportKind = option('transport', 'ours');
const authMode = option('auth', 'provider');
const generation = option('sdk', modern ? 'v2' : 'v1');
if (!['ours', 'sdk'].includes(transportKind) || !['fetch', 'provider'].includes(authMode) || !['v1', 'v2'].includes(generation)) {
  console.error('usage: client.mjs --transport ours|sdk --auth fetch|provider [--sdk v1|v2] <server-url>');
  process.exit(2);
}
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const REDIRECT_URL = 'http://localhost:3000/callback';
const CIMD_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const log = (...parts) => console.error('[client]', ...parts);

/** What the scenarios need of one SDK generation, under one set of names. */
async function loadSdk() {
  if (generation === 'v2') {
    const v2 = await import('@modelcontextprotocol/client');
    return {
      Client: v2.Client,
      Transport: v2.StreamableHTTPClientTransport,
      auth: v2.auth,
      extractWWWAuthenticateParams: v2.extractWWWAuthenticateParams,
      UnauthorizedError: v2.UnauthorizedError,
      ClientCredentialsProvider: v2.ClientCredentialsProvider,
      PrivateKeyJwtProvider: v2.PrivateKeyJwtProvider,
      DpopSession: v2.DpopSession,
      onElicitation: (client, handler) => client.setRequestHandler('elicitation/create', handler),
    };
  }
  const [{ Client }, { StreamableHTTPClientTransport }, auth, extensions, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/auth.js'),
    import('@modelcontextprotocol/sdk/client/auth-extensions.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client,
    Transport: StreamableHTTPClientTransport,
    auth: auth.auth,
    extractWWWAuthenticateParams: auth.extractWWWAuthenticateParams,
    UnauthorizedError: auth.UnauthorizedError,
    ClientCredentialsProvider: extensions.ClientCredentialsProvider,
    PrivateKeyJwtProvider: extensions.PrivateKeyJwtProvider,
    onElicitation: (client, handler) => client.setRequestHandler(types.ElicitRequestSchema, handler),
  };
}

const sdk = await loadSdk();
const { HttpMsgpackClientTransport } = transportKind === 'ours' ? await import('mcp-msgpack-transport') : {};
const wireCodecs = transportKind === 'ours' ? (await import('mcp-msgpack-transport/wire')).createWireCodecs({}) : undefined;

/**
 * An OAuthClientProvider for a headless run: everything in memory; "the browser" is a fetch of the
 * authorization URL that does not follow the redirect, whose query (code, state, iss) is kept for finishAuth.
 * It keeps no discovery state, so every authorization discovers afresh (a cached authorization server would
 * hide the switch auth/authorization-server-migration makes).
 */
class HeadlessProvider {
  constructor(clientName, { clientMetadataUrl, dpop } = {}) {
    this.clientMetadataUrl = clientMetadataUrl;
    this.clientMetadata = { client_name: clientName, redirect_uris: [REDIRECT_URL] };
    this.redirectUrl = REDIRECT_URL;
    if (dpop) this.dpop = dpop;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information) {
    this.client = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens) {
    this.stored = tokens;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }
  async redirectToAuthorization(authorizationUrl) {
    const response = await fetch(authorizationUrl, { redirect: 'manual' });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location) throw new Error(`no redirect from ${authorizationUrl}`);
    this.callback = new URL(location).searchParams;
  }
  forgetRefreshToken() {
    if (this.stored) this.stored = { ...this.stored, refresh_token: undefined };
  }
  /** The last authorization response's query, once. */
  takeCallback() {
    const callback = this.callback;
    this.callback = undefined;
    return callback;
  }
}

/**
 * OAuth outside the transport: bearer token on every request, and after a 401 or 403 the SDK's auth()
 * (with the redirect played at once), then the request once more.
 */
function oauthFetch(provider, next = fetch) {
  let requested;
  const authorize = async (response) => {
    const challenge = sdk.extractWWWAuthenticateParams(response);
    let scope = challenge.scope;
    if (response.status === 403 && challenge.error === 'insufficient_scope') {
      // Step-up (SEP-2350): everything asked for or granted so far plus the challenge, authorized anew (a
      // refresh cannot widen a grant).
      scope = scopeUnion(requested, (await provider.tokens())?.scope, challenge.scope);
      provider.forgetRefreshToken();
    }
    requested = scopeUnion(requested, scope);
    const options = { serverUrl: serverUrl, resourceMetadataUrl: challenge.resourceMetadataUrl, scope, fetchFn: next };
    let result = await sdk.auth(provider, options);
    if (result === 'REDIRECT') {
      const callback = provider.takeCallback();
      const code = callback?.get('code');
      if (!code) throw new sdk.UnauthorizedError('the authorization redirect carried no code');
      const iss = callback.get('iss') ?? undefined;
      result = await sdk.auth(provider, { ...options, authorizationCode: code, ...(generation === 'v2' ? { iss } : {}) });
    }
    if (result !== 'AUTHORIZED') throw new sdk.UnauthorizedError(`authorization ended in ${result}`);
  };
  return async (input, init) => {
    const send = async () => {
      const headers = new Headers(init?.headers);
      const tokens = await provider.tokens();
      if (tokens) headers.set('authorization', `Bearer ${tokens.access_token}`);
      return next(input, { ...init, headers });
    };
    let response = await send();
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      await authorize(response);
      response = await send();
    }
    if (response.status === 401 || response.status === 403) throw new sdk.UnauthorizedError(`authentication failed for ${input}`);
    return response;
  };
}

function scopeUnion(...scopes) {
  const seen = new Set(scopes.flatMap((scope) => scope?.split(/\s+/) ?? []).filter(Boolean));
  return seen.size > 0 ? [...seen].join(' ') : undefined;
}

/**
 * For the SEP-2243 and SEP-2322 mocks, which answer neither `server/discover` nor a usable `initialize`:
 * answers v2's version probe locally (as the SDK's own conformance client does), so the modern era is
 * established and everything else reaches the mock. Reads the probe in either encoding.
 */
function answeringDiscover(next = fetch) {
  return async (input, init) => {
    const message = requestMessage(init);
    if (message?.method === 'server/discover') {
      const result = {
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'conformance-mock', version: '1.0.0' } },
      };
      return Response.json({ jsonrpc: '2.0', id: message.id, result });
    }
    return next(input, init);
  };
}

function requestMessage(init) {
  const body = init?.body;
  try {
    if (typeof body === 'string') return JSON.parse(body);
    if (body instanceof Uint8Array) {
      const type = new Headers(init.headers).get('content-type') ?? '';
      return type.includes('msgpack') ? wireCodecs.msgpack.decodeValue(body) : JSON.parse(new TextDecoder().decode(body));
    }
  } catch {
    // not a JSON-RPC body
  }
  return undefined;
}

function newTransport(options = {}) {
  return transportKind === 'ours' ? new HttpMsgpackClientTransport(serverUrl, options) : new sdk.Transport(serverUrl, options);
}

function newClient(name, capabilities = {}) {
  return new sdk.Client({ name, version: '1.0.0' }, { capabilities, ...(generation === 'v2' && modern ? { versionNegotiation: { mode: 'auto' } } : {}) });
}

const isUnauthorized = (error) => error instanceof sdk.UnauthorizedError || error?.name === 'UnauthorizedError';

/**
 * Runs `work` on a connected client; through the transport's authProvider, a redirect to authorize ends in
 * UnauthorizedError: the redirect's query goes to that transport's finishAuth (as the SDK's v2 transport
 * takes it; v1's takes the code), and a new connection runs `work` again. At most three authorization rounds (the runner counts a fourth as a loop).
 */
async function session(name, work, { capabilities, provider, transportOptions = {}, forceProvider = false } = {}) {
  const viaProvider = provider !== undefined && (authMode === 'provider' || forceProvider);
  for (let round = 0; ; round++) {
    const client = newClient(name, capabilities);
    const transport = newTransport({ ...transportOptions, ...(viaProvider ? { authProvider: provider } : {}) });
    try {
      await client.connect(transport);
      await work(client);
      await client.close();
      return;
    } catch (error) {
      await client.close().catch(() => {});
      const callback = provider?.takeCallback?.();
      if (!viaProvider || !isUnauthorized(error) || !callback || round >= 2) throw error;
      log(`authorizing (round ${round + 1}) after: ${error.message}`);
      await transport.finishAuth(generation === 'v2' ? callback : callback.get('code'));
    }
  }
}

/** The transport options of an OAuth scenario: the wrapper in fetch mode; the provider goes to session(). */
function authOptions(provider) {
  return authMode === 'fetch' ? { fetch: oauthFetch(provider) } : {};
}

async function listThenCallTestTool(client) {
  await client.listTools();
  await client.callTool({ name: 'test-tool', arguments: {} });
}

async function authScenario() {
  const provider = new HeadlessProvider('test-auth-client', { clientMetadataUrl: CIMD_CLIENT_METADATA_URL });
  await session('test-auth-client', listThenCallTestTool, { provider, transportOptions: authOptions(provider) });
}

async function preRegistration() {
  const provider = new HeadlessProvider('conformance-pre-registration');
  provider.saveClientInformation({ client_id: context.client_id, client_secret: context.client_secret, redirect_uris: [REDIRECT_URL] });
  await session('conformance-pre-registration', listThenCallTestTool, { provider, transportOptions: authOptions(provider) });
}

/** Client credentials: the SDK's non-interactive providers, always through the transport's authProvider. */
async function clientCredentials() {
  const provider =
    scenario === 'auth/client-credentials-jwt'
      ? new sdk.PrivateKeyJwtProvider({ clientId: context.client_id, privateKey: context.private_key_pem, algorithm: context.signing_algorithm ?? 'ES256' })
      : new sdk.ClientCredentialsProvider({ clientId: context.client_id, clientSecret: context.client_secret });
  const client = newClient('conformance-client-credentials');
  await client.connect(newTransport({ authProvider: provider }));
  await client.listTools();
  await client.close();
}

/**
 * Workload identity federation (RFC 7523 JWT bearer grant): a non-interactive provider whose token request
 * carries the workload's assertion, through the transport's authProvider in either mode.
 */
async function workloadIdentity() {
  const provider = {
    redirectUrl: undefined,
    clientMetadata: { client_name: 'conformance-wif', redirect_uris: [], grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'], token_endpoint_auth_method: 'none' },
    clientInformation: () => ({ client_id: context.client_id }),
    tokens() {
      return this.stored;
    },
    saveTokens(tokens) {
      this.stored = tokens;
    },
    redirectToAuthorization() {
      throw new Error('workload identity does not redirect');
    },
    saveCodeVerifier() {},
    codeVerifier: () => '',
    prepareTokenRequest: () => new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: context.valid_jwt }),
  };
  const client = newClient('conformance-wif');
  await client.connect(newTransport({ authProvider: provider }));
  await client.listTools();
  await client.close();
}

/**
 * DPoP (SEP-1932, SDK v2 only): a provider whose dpop() gives a key pair; the SDK's auth() proves possession
 * on the token request and the transport on each MCP request, so this runs through the transport's
 * authProvider in either mode (a fetch wrapper would have to sign for it).
 */
async function dpopScenario() {
  if (!sdk.DpopSession) throw new Error('DPoP needs SDK v2');
  const dpop = await sdk.DpopSession.create();
  const provider = new HeadlessProvider('test-dpop-client', { dpop: () => dpop });
  await session('test-dpop-client', listThenCallTestTool, { provider, forceProvider: true });
}

/** SEP-990: ID token -> ID-JAG at the IdP (RFC 8693), ID-JAG -> access token at the AS (RFC 7523). */
async function enterpriseManaged() {
  const prm = await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', serverUrl))).json();
  const asMetadata = await (await fetch(new URL('/.well-known/oauth-authorization-server', prm.authorization_servers[0]))).json();
  const exchange = await fetch(context.idp_token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: asMetadata.issuer,
      resource: prm.resource,
      subject_token: context.idp_id_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      client_id: context.idp_client_id,
    }),
  });
  if (!exchange.ok) throw new Error(`token exchange failed: ${await exchange.text()}`);
  const idJag = (await exchange.json()).access_token;
  const basic = Buffer.from(`${encodeURIComponent(context.client_id)}:${encodeURIComponent(context.client_secret)}`).toString('base64');
  const grant = await fetch(asMetadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: idJag }),
  });
  if (!grant.ok) throw new Error(`JWT bearer grant failed: ${await grant.text()}`);
  const { access_token: token } = await grant.json();
  await session('conformance-enterprise-managed', listThenCallTestTool, { transportOptions: { requestInit: { headers: { authorization: `Bearer ${token}` } } } });
}

const toolCalls = () => context.toolCalls ?? [];

const SCENARIOS = {
  initialize: () => session('test-client', (client) => client.listTools()),
  tools_call: () =>
    session('test-client', async (client) => {
      const { tools } = await client.listTools();
      if (tools.some((tool) => tool.name === 'add_numbers')) await client.callTool({ name: 'add_numbers', arguments: { a: 5, b: 3 } });
    }),
  'request-metadata': () => session('test-client', async () => {}, { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } }),
  'elicitation-sep1034-client-defaults': () =>
    session(
      'elicitation-defaults-test-client',
      async (client) => {
        sdk.onElicitation(client, async () => ({ action: 'accept', content: {} }));
        await client.listTools();
        await client.callTool({ name: 'test_client_elicitation_defaults', arguments: {} });
      },
      { capabilities: { elicitation: { form: { applyDefaults: true } } } },
    ),
  'sse-retry': () =>
    session('sse-retry-test-client', async (client) => {
      await client.listTools();
      await client.callTool({ name: 'test_reconnection', arguments: {} });
    }),
  'json-schema-ref-no-deref': () => session('json-schema-ref-no-deref-client', (client) => client.listTools()),
  'json-schema-2020-12-preservation': () =>
    session('json-schema-preservation-client', async (client) => {
      const { tools } = await client.listTools();
      const tool = tools.find((each) => each.name === 'json_schema_2020_12_tool');
      if (tool && tools.some((each) => each.name === 'json_schema_echo')) await client.callTool({ name: 'json_schema_echo', arguments: { schema: tool.inputSchema } });
    }),
  'http-standard-headers': () =>
    session(
      'test-client',
      async (client) => {
        const { tools } = await client.listTools();
        if (tools[0]) await client.callTool({ name: tools[0].name, arguments: {} });
        const { resources } = await client.listResources();
        if (resources[0]) await client.readResource({ uri: resources[0].uri });
        const { prompts } = await client.listPrompts();
        if (prompts[0]) await client.getPrompt({ name: prompts[0].name, arguments: {} });
      },
      { transportOptions: { fetch: answeringDiscover() } },
    ),
  'http-custom-headers': () =>
    session(
      'test-client',
      async (client) => {
        await client.listTools();
        for (const call of toolCalls()) await client.callTool({ name: call.name, arguments: call.arguments });
      },
      { transportOptions: { fetch: answeringDiscover() } },
    ),
  'http-invalid-tool-headers': () =>
    session(
      'test-client',
      async (client) => {
        const { tools } = await client.listTools();
        for (const tool of tools) await client.callTool({ name: tool.name, arguments: { region: 'us-west1' } }).catch((error) => log(`call ${tool.name}: ${error}`));
      },
      { transportOptions: { fetch: answeringDiscover() } },
    ),
  'sep-2322-client-request-state': () =>
    session(
      'test-client',
      async (client) => {
        sdk.onElicitation(client, async () => ({ action: 'accept', content: { confirmed: true } }));
        for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated']) await client.callTool({ name, arguments: {} });
        // A result without resultType: the SDK refuses it locally; what counts is that it does not retry.
        await client.callTool({ name: 'test_mrtr_no_result_type', arguments: {} }).catch((error) => log(`test_mrtr_no_result_type: ${error}`));
      },
      { capabilities: { elicitation: {} }, transportOptions: { fetch: answeringDiscover() } },
    ),
  'auth/pre-registration': preRegistration,
  'auth/client-credentials-jwt': clientCredentials,
  'auth/client-credentials-basic': clientCredentials,
  'auth/enterprise-managed-authorization': enterpriseManaged,
  'auth/wif-jwt-bearer': workloadIdentity,
  'auth/dpop': dpopScenario,
  'auth/dpop-nonce': dpopScenario,
};

const handler = SCENARIOS[scenario] ?? (scenario.startsWith('auth/') ? authScenario : undefined);
if (!handler) {
  console.error(`client.mjs: no handler for scenario '${scenario}'`);
  process.exit(1);
}
try {
  await handler();
  process.exit(0);
} catch (error) {
  console.error(`client.mjs (${transportKind}, ${authMode}, SDK ${generation}) ${scenario}:`, error);
  process.exit(1);
}
