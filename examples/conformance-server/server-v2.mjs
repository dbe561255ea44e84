// The conformance server of server.mjs on SDK v2 (@modelcontextprotocol/server): the same fixtures, served
// by our McpHttpHandler on both revisions at one URL, 2025-11-25 (sessions) and 2026-07-28 (stateless).
// `npm run conformance` runs the 2026-07-28 suite against it.
//
//   node examples/conformance-server/server-v2.mjs [--port N] [--host 127.0.0.1]
// prints `listening <url>` once ready.
import { Server } from '@modelcontextprotocol/server';
import { listenNode, McpHttpHandler } from 'mcp-msgpack-transport';
import { MemoryEventStore } from './event-store.mjs';
import { complete, getPrompt, PNG_BASE64, prompts, readResource, resources, SERVER_CAPABILITIES, SERVER_INFO, WAV_BASE64 } from './fixtures.mjs';
import { getInputRequiredPrompt, inputRequiredPrompt, inputRequiredTools, requestStateCodec, runInputRequiredTool } from './input-required.mjs';
import { tools } from './tools.mjs';

/** One SDK v2 Server per session or per 2026-07-28 request (the handler makes them). */
export function createConformanceServerV2() {
  const server = new Server(SERVER_INFO, { capabilities: SERVER_CAPABILITIES, requestState: { verify: requestStateCodec.verify } });
  const subscriptions = new Set();

  server.setRequestHandler('tools/list', async () => ({ tools: [...tools.map(({ run: _run, ...tool }) => tool), ...inputRequiredTools] }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const multiRound = runInputRequiredTool(request.params.name, ctx, server);
    if (multiRound) return multiRound;
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${request.params.name}` }] };
    // The tools are written against v1's handler `extra`; v2's context offers the same under other names.
    const extra = { signal: ctx.mcpReq.signal, sendNotification: (notification) => ctx.mcpReq.notify(notification), closeSSEStream: ctx.http?.closeSSE };
    return tool.run({
      server,
      extra,
      args: request.params.arguments ?? {},
      progressToken: request.params._meta?.progressToken,
      sample: (params) => ctx.mcpReq.requestSampling(params),
      elicit: (params) => ctx.mcpReq.elicitInput(params),
      png: PNG_BASE64,
      wav: WAV_BASE64,
    });
  });

  server.setRequestHandler('resources/list', async () => ({ resources }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id', mimeType: 'application/json' }],
  }));
  server.setRequestHandler('resources/read', async (request) => {
    const content = readResource(request.params.uri);
    if (!content) throw new Error(`Resource not found: ${request.params.uri}`);
    return { contents: [content] };
  });
  server.setRequestHandler('resources/subscribe', async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });
  server.setRequestHandler('prompts/list', async () => ({ prompts: [...prompts, inputRequiredPrompt] }));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    if (request.params.name === inputRequiredPrompt.name) return getInputRequiredPrompt(ctx);
    const prompt = getPrompt(request.params.name, request.params.arguments);
    if (!prompt) throw new Error(`Unknown prompt: ${request.params.name}`);
    return prompt;
  });
  server.setRequestHandler('completion/complete', async (request) => complete(request.params.argument.value));
  server.setRequestHandler('logging/setLevel', async () => ({}));
  return server;
}

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const handler = new McpHttpHandler({ createServer: createConformanceServerV2, eventStore: new MemoryEventStore(), retryInterval: 500 });
  const running = await listenNode(handler, { host: argument('host', '127.0.0.1'), port: Number(argument('port', '0')) });
  console.log(`listening ${running.url.href}`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
