// Genkit (genkit + @genkit-ai/mcp, createMcpClient({ mcpServer: { transport } })) on our stdio and HTTP client
// transports, against the media server: 14 tools as Genkit tool actions, a text tool and read_media_file
// called, the image's bytes checked, and the wire checked to be MessagePack with native bytes.
//
// Genkit 1.42.0 cannot run the tool actions of a server whose input schemas declare JSON Schema draft 2020-12
// (SDK v2 servers with zod 4, as the media server is): its own input validation (ajv, draft-07) throws
// `no schema with key or ref "https://json-schema.org/draft/2020-12/schema"`, with Genkit's own stdio
// transport too (the schema, not the transport, is the cause). So the calls go through the action when
// Genkit can run it, else through the MCP client Genkit holds (`client.mcpClient`, on our transport); which
// one is printed.
import { genkit } from 'genkit';
import { createMcpClient } from '@genkit-ai/mcp';
import { TOOL_COUNT, check, checkImage, imagePath, ourTransports, runtime, text, textPath } from './checks.mjs';

const ai = genkit({});
for (const [kind, { tap, transport }] of ourTransports()) {
  const client = createMcpClient({ name: 'media-check', mcpServer: { transport } });
  try {
    await client.ready();
    const tools = await client.getActiveTools(ai);
    // Genkit names each action `<server name>/<tool>`.
    const byName = new Map(tools.map((tool) => [tool.__action.name.split('/').pop(), tool]));
    check(tools.length === TOOL_COUNT && byName.has('read_media_file'), `${kind}: tools: ${[...byName.keys()]}`);

    const { result: read, via } = await call(client, byName.get('read_text_file'), 'read_text_file', { path: textPath });
    check((via === 'action' ? read : read.content?.[0]?.text) === text, `${kind}: read_text_file: ${JSON.stringify(read).slice(0, 200)}`);
    // A single content block comes back from the action as it is (@genkit-ai/mcp's processResult).
    const { result } = await call(client, byName.get('read_media_file'), 'read_media_file', { path: imagePath });
    const media = via === 'action' ? result : result.content?.[0];
    checkImage(media, `${kind}: read_media_file`);

    check(transport.wire === 'msgpack', `${kind}: wire is ${transport.wire}`);
    await tap.checkNativeBytes(kind);
    console.log(
      `genkit (${runtime}) over ${kind}: ${tools.length} tools, read_text_file and read_media_file (${media.mimeType}, bytes intact) through ${via === 'action' ? 'the Genkit actions' : 'client.mcpClient (Genkit cannot validate draft 2020-12 input schemas)'}, msgpack with native bytes`,
    );
  } finally {
    await client.disable();
  }
}

/** The tool through its Genkit action, or through Genkit's MCP client when Genkit refuses the draft 2020-12 schema. */
async function call(client, action, name, input) {
  try {
    return { result: await action(input), via: 'action' };
  } catch (error) {
    if (!/no schema with key or ref "https:\/\/json-schema\.org\/draft\/2020-12\/schema"/.test(String(error?.message))) throw error;
    return { result: await client.mcpClient.callTool({ name, arguments: input }), via: 'mcpClient' };
  }
}
