// @langchain/mcp-adapters 1.x: loadMcpTools(name, client) with an SDK v1 Client on our stdio and HTTP client
// transports; the LangChain tools invoked as an agent would, the image's bytes checked, the wire checked.
import { loadMcpTools } from '@langchain/mcp-adapters';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOL_COUNT, check, ourTransports, imagePath, png, runtime, text, textPath } from './checks.mjs';

for (const [kind, { tap, transport }] of ourTransports()) {
  const client = new Client({ name: 'langchain-check', version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools = await loadMcpTools('files', client);
    const names = tools.map((tool) => tool.name);
    check(names.length === TOOL_COUNT && names.some((name) => name.endsWith('read_media_file')), `${kind}: tools: ${names}`);
    const tool = (name) => tools.find((t) => t.name === name || t.name.endsWith(`__${name}`));

    // A text result comes back as its content block; media as LangChain's image_url block (a data URL).
    const read = await tool('read_text_file').invoke({ path: textPath });
    check(read?.type === 'text' && read.text === text, `${kind}: read_text_file: ${JSON.stringify(read)?.slice(0, 200)}`);
    const media = await tool('read_media_file').invoke({ path: imagePath });
    const dataUrl = [media].flat().find((block) => block?.type === 'image_url')?.image_url?.url ?? '';
    const [, mimeType, base64] = /^data:([^;]+);base64,(.*)$/s.exec(dataUrl) ?? [];
    check(mimeType === 'image/png' && Buffer.from(base64 ?? '', 'base64').equals(png), `${kind}: read_media_file: ${JSON.stringify(media)?.slice(0, 200)}`);

    check(transport.wire === 'msgpack', `${kind}: wire is ${transport.wire}`);
    await tap.checkNativeBytes(kind);
    console.log(`langchain (${runtime}) over ${kind}: ${names.length} tools, read_text_file and read_media_file (bytes intact), msgpack with native bytes`);
  } finally {
    await client.close();
  }
}
