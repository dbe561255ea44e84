import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpHandler, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import { startRecordingServer, type RecordingServer } from './recording-http.js';

export interface OAuthServer extends RecordingServer {
  /** Clients registered through dynamic client registration, and tokens issued for an authorization code. */
  stats: { registered: number; issued: number };
}

/**
 * An MCP endpoint behind a bearer gate and its own authorization server on one loopback origin: the two
 * metadata documents, dynamic client registration, an /authorize that approves at once (redirecting to the
 * client's redirect URI with a code), and a token endpoint that checks PKCE.
 */
export async function startOAuthServer(
  options: McpHttpHandlerOptions,
  /** RFC 9207: advertise `iss` in authorization responses, and the `iss` the redirect carries ('issuer': the right one). */
  iss: { advertised: boolean; sent: 'issuer' | string } | undefined = undefined,
): Promise<OAuthServer> {
  const handler = new McpHttpHandler(options);
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const tokens = new Set<string>();
  let origin = '';
  const state = { registered: 0, issued: 0 };
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        ...(iss?.advertised ? { authorization_response_iss_parameter_supported: true } : {}),
      });
    }
    if (url.pathname === '/register') {
      const metadata = JSON.parse(await text(req)) as Record<string, unknown>;
      state.registered++;
      return json(res, 201, { ...metadata, client_id: `client-${state.registered}` });
    }
    if (url.pathname === '/authorize') {
      const code = `code-${codes.size + 1}`;
      const redirectUri = url.searchParams.get('redirect_uri')!;
      codes.set(code, { challenge: url.searchParams.get('code_challenge')!, redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      const given = url.searchParams.get('state');
      if (given) back.searchParams.set('state', given);
      if (iss) back.searchParams.set('iss', iss.sent === 'issuer' ? origin : iss.sent);
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token') {
      const form = new URLSearchParams(await text(req));
      const pending = codes.get(form.get('code') ?? '');
      const challenge = createHash('sha256')
        .update(form.get('code_verifier') ?? '')
        .digest('base64url');
      if (!pending || pending.challenge !== challenge || pending.redirectUri !== form.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
      codes.delete(form.get('code')!);
      const token = `access-${++state.issued}`;
      tokens.add(token);
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
    }
    if (url.pathname === '/mcp') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (token && tokens.has(token)) return handler.handleNode(req, res);
      req.resume();
      res.writeHead(401, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`, 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: 'invalid_token' }));
    }
    json(res, 404, { error: 'not_found' });
  };
  const recording = await startRecordingServer(route);
  origin = recording.url.origin;
  const closeRecording = recording.close;
  return Object.assign(recording, {
    stats: state,
    close: async () => {
      await handler.close();
      await closeRecording();
    },
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

async function text(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}
