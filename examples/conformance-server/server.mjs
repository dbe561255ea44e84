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
import { tools } from './tools.mjs';

// A 1x1 PNG and a tiny WAV, as the suite's image/audio fixtures expect (base64 on the JSON wire).
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';
export const WAV_BASE64 = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=';

const resources = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource (PNG)', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
];

const prompts = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

function readResource(uri) {
  if (uri === 'test://static-text') return { uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' };
  if (uri === 'test://static-binary') return { uri, mimeType: 'image/png', blob: PNG_BASE64 };
  if (uri === 'test://watched-resource') return { uri, mimeType: 'text/plain', text: 'Watched resource content.' };
  const template = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (template) {
    const id = decodeURIComponent(template[1]);
    return { uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) };
  }
  return undefined;
}

function getPrompt(name, args = {}) {
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
    case 'test_prompt_with_arguments':
      return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          { role: 'user', content: { type: 'resource', resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      };
    case 'test_prompt_with_image':
      return {
        messages: [
          { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      };
    default:
      return undefined;
  }
}

/** One MCP server per session (the handler makes a new one for each). */
export function createConformanceServer() {
  const server = new Server(
    { name: 'mcp-msgpack-conformance-server', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
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

  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const value = request.params.argument.value ?? '';
    const candidates = ['paris', 'park', 'party', 'test', 'testing'];
    const values = candidates.filter((candidate) => candidate.startsWith(value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
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
