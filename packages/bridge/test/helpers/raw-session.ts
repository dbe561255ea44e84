/** A session driven with bare fetch (JSON), for what a stock client never does: exact bodies and headers. */
export interface RawSession {
  sessionId: string;
  post(message: unknown, extraHeaders?: Record<string, string>): Promise<Response>;
  /** A request's answer, read off its reply stream. */
  call(message: { id: number; method: string; params?: unknown }): Promise<{ result?: unknown; error?: { message: string } }>;
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export async function rawSession(url: URL, headers: Record<string, string> = {}): Promise<RawSession> {
  const init = await fetch(url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  const sessionId = init.headers.get('mcp-session-id');
  await init.text();
  if (!init.ok || !sessionId) throw new Error(`initialize: HTTP ${init.status}`);
  const sessionHeaders = { ...JSON_HEADERS, ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
  const post = (message: unknown, extraHeaders: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { ...sessionHeaders, ...extraHeaders }, body: JSON.stringify(message) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  return {
    sessionId,
    post,
    call: async (message) => {
      const response = await post({ jsonrpc: '2.0', ...message });
      const text = await response.text();
      for (const line of text.split('\n')) {
        if (!line.startsWith('data:') || line.length < 7) continue;
        const parsed = JSON.parse(line.slice(5)) as { id?: unknown };
        if (parsed.id === message.id) return parsed as { result?: unknown; error?: { message: string } };
      }
      if (text.startsWith('{')) return JSON.parse(text) as { result?: unknown; error?: { message: string } };
      throw new Error(`no answer to ${message.method} (HTTP ${response.status}): ${text.slice(0, 200)}`);
    },
  };
}
