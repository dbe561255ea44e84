// A browser: the clients (browser.mjs) bundled for the browser, loaded by headless Chromium from one origin,
// calling an MCP server on another (CORS) served by Node. Prints the bundle size and the page's checks.
import { createServer } from 'node:http';
import { McpHttpHandler } from 'mcp-msgpack-transport';
import { chromium } from 'playwright-core';
import { bundle, kib } from './bundle.mjs';
import { createServer as createMcpServer } from './mcp-server.mjs';

const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

const smallest = await bundle('client-only.mjs', 'browser');
console.log(
  `browser client bundle (SDK v2 Client + HttpMsgpackClientTransport): ${kib(smallest.bytes)} minified, ${kib(smallest.gzipBytes)} gzipped (mcp-msgpack-transport and msgpackr: ${kib(smallest.oursBytes)} of it)`,
);
const client = await bundle('browser.mjs', 'browser');

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const page = createServer((req, res) => {
  if (req.url === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(client.text);
  else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>edge</title><script type="module" src="/client.js"></script>');
});
const handler = new McpHttpHandler({ createServer: createMcpServer, nativeBytes: true });
// The MCP server allows the page's origin: preflights answered here, every reply carries the CORS headers.
const mcp = createServer((req, res) => {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version');
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { 'access-control-allow-methods': 'GET, POST, DELETE', 'access-control-allow-headers': '*', 'access-control-max-age': '600' }).end();
    return;
  }
  void handler.handleNode(req, res);
});
const [pagePort, mcpPort] = [await listen(page), await listen(mcp)];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS, timeout: 60_000 });
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on('pageerror', (error) => errors.push(String(error)));
  await tab.goto(`http://127.0.0.1:${pagePort}/?mcp=${encodeURIComponent(`http://127.0.0.1:${mcpPort}/mcp`)}`);
  await tab.waitForFunction(() => globalThis.edgeResult !== undefined, undefined, { timeout: 30_000 });
  const result = await tab.evaluate(() => globalThis.edgeResult);
  if (!result.ok) throw new Error(`in the browser: ${result.error}${errors.length ? `\npage errors: ${errors.join('\n')}` : ''}`);
  for (const line of result.lines) console.log(`chromium ${browser.version()}: ${line}`);
} finally {
  await browser.close();
  await handler.close();
  page.close();
  mcp.close();
  mcp.closeAllConnections?.();
  page.closeAllConnections?.();
}
