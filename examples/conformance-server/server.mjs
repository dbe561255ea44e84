// An MCP server on mcp-msgpack-transport's Streamable HTTP transport that implements the fixtures the MCP
// conformance suite (@modelcontextprotocol/conformance) asks for. The suite speaks JSON; MessagePack clients
// get the same server at the same URL.
//
//   node examples/conformance-server/server.mjs [--port N] [--host 127.0.0.1]
// prints `listening <url>` once ready.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { listenNode, McpHttpHandler } from 'mcp-msgpack-transport';
import { MemoryEventStore } from './event-store.mjs';
import { complete, getPrompt, PNG_BASE64, prompts, readResource, resources, SERVER_CAPABILITIES, SERVER_INFO, WAV_BASE64 } from './fixtures.mjs';
import { tools } from './tools.mjs';

export { PNG_BASE64, WAV_BASE64 } from './fixtures.mjs';

/** One MCP server per session (the handler makes a new one for each). */
export function createConformanceServer() {
  const server = new Server(SERVER_INFO, { capabilities: SERVER_CAPABILITIES });
  const subscriptions = new Set();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map(({ run: _run, ...tool }) => tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${request.params.name}` }] };
    const context = {
      server,
      extra,
      args: request.params.arguments ?? {},
      progressToken: request.params._meta?.progressToken,
      sample: (params) => extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema),
      elicit: (params) => extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema),
      png: PNG_BASE64,
      wav: WAV_BASE64,
    };
    return tool.run(context);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const content = readResource(request.params.uri);
    if (!content) throw new Error(`Resource not found: ${request.params.uri}`);
    return { contents: [content] };
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const prompt = getPrompt(request.params.name, request.params.arguments);
    if (!prompt) throw new Error(`Unknown prompt: ${request.params.name}`);
    return prompt;
  });

  server.setRequestHandler(CompleteRequestSchema, async (request) => complete(request.params.argument.value));
  server.setRequestHandler(SetLevelRequestSchema, async () => ({}));
  return server;
}

/** The handler: sessions, an in-memory event store so cut streams can resume, loopback Host checks. */
export function createConformanceHandler(options = {}) {
  return new McpHttpHandler({
    createServer: createConformanceServer,
    eventStore: new MemoryEventStore(),
    retryInterval: 500,
    ...options,
  });
}

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const running = await listenNode(createConformanceHandler(), { host: argument('host', '127.0.0.1'), port: Number(argument('port', '0')) });
  console.log(`listening ${running.url.href}`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
