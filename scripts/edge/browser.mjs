// The browser page's script, bundled for the browser: both clients call the MCP server named in the page's
// query (another origin: CORS) and the outcome is left in globalThis.edgeResult for the test to read.
import { checkClient } from './check-client.mjs';

const url = new URLSearchParams(location.search).get('mcp');
globalThis.edgeResult = (async () => {
  const lines = [];
  for (const which of ['ours', 'sdk']) lines.push(await checkClient(url, which));
  return lines;
})().then(
  (lines) => ({ ok: true, lines }),
  (error) => ({ ok: false, error: String(error?.stack ?? error) }),
);
