// The conformance suite's fixture data, shared by server.mjs (SDK v1) and server-v2.mjs (SDK v2): the image
// and audio bytes, the resources, the prompts and the completion candidates.

export const SERVER_INFO = { name: 'mcp-msgpack-conformance-server', version: '1.0.0' };
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

// A 1x1 PNG and a tiny WAV, as the suite's image/audio fixtures expect (base64 on the JSON wire).
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';
export const WAV_BASE64 = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=';

export const resources = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource (PNG)', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
];

export const prompts = [
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

export function readResource(uri) {
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

export function getPrompt(name, args = {}) {
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

/** The completion/complete answer: the candidates that start with what was typed. */
export function complete(value = '') {
  const values = ['paris', 'park', 'party', 'test', 'testing'].filter((candidate) => candidate.startsWith(value));
  return { completion: { values, total: values.length, hasMore: false } };
}
