// The tools the conformance scenarios call, each with a JSON Schema input and a run(context) function.
const noArguments = { type: 'object', properties: {} };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: 'text', text: value }] });

async function log(context, data) {
  await context.extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
}

export const tools = [
  {
    name: 'test_simple_text',
    description: 'Returns simple text content',
    inputSchema: noArguments,
    run: async () => text('This is a simple text response for testing.'),
  },
  {
    name: 'test_image_content',
    description: 'Returns image content',
    inputSchema: noArguments,
    run: async ({ png }) => ({ content: [{ type: 'image', data: png, mimeType: 'image/png' }] }),
  },
  {
    name: 'test_audio_content',
    description: 'Returns audio content',
    inputSchema: noArguments,
    run: async ({ wav }) => ({ content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }] }),
  },
  {
    name: 'test_embedded_resource',
    description: 'Returns an embedded resource',
    inputSchema: noArguments,
    run: async () => ({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    }),
  },
  {
    name: 'test_multiple_content_types',
    description: 'Returns text, image and resource content',
    inputSchema: noArguments,
    run: async ({ png }) => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
      ],
    }),
  },
  {
    name: 'test_tool_with_logging',
    description: 'Sends three log messages while it runs',
    inputSchema: noArguments,
    run: async (context) => {
      await log(context, 'Tool execution started');
      await sleep(50);
      await log(context, 'Tool processing data');
      await sleep(50);
      await log(context, 'Tool execution completed');
      return text('Tool with logging executed successfully');
    },
  },
  {
    name: 'test_error_handling',
    description: 'Always fails',
    inputSchema: noArguments,
    run: async () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
  },
  {
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50, 100 of 100',
    inputSchema: noArguments,
    run: async ({ extra, progressToken }) => {
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
        }
        if (progress < 100) await sleep(50);
      }
      return text('Tool with progress executed successfully');
    },
  },
  {
    name: 'test_sampling',
    description: 'Asks the client for an LLM completion',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
    run: async (context) => {
      if (!context.server.getClientCapabilities()?.sampling) return { isError: true, content: [{ type: 'text', text: 'Client does not support sampling' }] };
      const result = await context.sample({ messages: [{ role: 'user', content: { type: 'text', text: String(context.args.prompt) } }], maxTokens: 100 });
      const reply = result.content?.type === 'text' ? result.content.text : JSON.stringify(result.content);
      return text(`LLM response: ${reply}`);
    },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user for a username and email',
    inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
    run: async (context) => {
      if (!context.server.getClientCapabilities()?.elicitation) return { isError: true, content: [{ type: 'text', text: 'Client does not support elicitation' }] };
      const result = await context.elicit({
        message: String(context.args.message),
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    },
  },
  {
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicitation with a default for every primitive type (SEP-1034)',
    inputSchema: noArguments,
    run: async (context) => {
      const result = await context.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
        },
      });
      return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    },
  },
  {
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicitation with every enum form (SEP-1330)',
    inputSchema: noArguments,
    run: async (context) => {
      const result = await context.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Titled single-select',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Legacy titled enum',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: { type: 'array', description: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: {
              type: 'array',
              description: 'Titled multi-select',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
        },
      });
      return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    },
  },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'address', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
      // Composition and conditional keywords, which a 2026-07-28 server must pass through as written (SEP-2106).
      allOf: [{ anyOf: [{ required: ['name'] }, { required: ['address'] }] }],
      if: { properties: { name: { const: 'home' } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable
      then: { required: ['address'] },
      else: {},
    },
    run: async (context) => text(`Received: ${JSON.stringify(context.args)}`),
  },
  {
    // SEP-2243: `region` is mirrored into the Mcp-Param-Region header by 2026-07-28 clients; the transport
    // refuses a call whose header is missing or disagrees with the argument.
    name: 'test_custom_headers',
    description: 'Tool whose region argument travels in an Mcp-Param-Region header too (SEP-2243)',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
      required: ['region'],
    },
    run: async (context) => text(`Region: ${context.args.region}`),
  },
  {
    // The plain synchronous tool the tasks extension's scenarios call alongside their task tools.
    name: 'greet',
    description: 'Greets by name',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    run: async (context) => text(`Hello, ${context.args.name}!`),
  },
  {
    name: 'test_reconnection',
    description: 'Closes its reply stream mid-call; the client resumes it (SEP-1699)',
    inputSchema: noArguments,
    run: async ({ extra }) => {
      await sleep(50);
      // Offered only when the stream is resumable (an event store, protocol 2025-11-25 or later).
      extra.closeSSEStream?.();
      await sleep(100);
      return text('Reconnection test completed successfully');
    },
  },
];
