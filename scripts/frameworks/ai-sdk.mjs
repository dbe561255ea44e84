// The AI SDK's MCP client (@ai-sdk/mcp, createMCPClient({ transport })) on our stdio and HTTP client
// transports, against the media server: 14 tools as AI SDK tools, a text tool and read_media_file executed
// as an agent would, the image's bytes checked, and the wire checked to be MessagePack with native bytes.
import { createMCPClient } from '@ai-sdk/mcp';
import { NATIVE_BYTES_CAPABILITY } from 'mcp-msgpack-transport';
import { TOOL_COUNT, check, checkImage, ourTransports, imagePath, runtime, text, textPath } from './checks.mjs';

for (const [kind, { tap, transport }] of ourTransports()) {
  const client = await createMCPClient({ transport });
  try {
    const tools = await client.tools();
    const names = Object.keys(tools);
    check(names.length === TOOL_COUNT && names.includes('read_media_file'), `${kind}: tools: ${names}`);
    const options = { toolCallId: 'call-1', messages: [] };

    const read = await tools.read_text_file.execute({ path: textPath }, options);
    check(read.content?.[0]?.text === text, `${kind}: read_text_file: ${JSON.stringify(read).slice(0, 200)}`);

    const media = await tools.read_media_file.execute({ path: imagePath }, options);
    checkImage(media.content?.[0], `${kind}: read_media_file`);

    check(transport.wire === 'msgpack', `${kind}: wire is ${transport.wire}`);
    check(client.initializeResult.capabilities?.experimental?.[NATIVE_BYTES_CAPABILITY] !== undefined, `${kind}: the server did not confirm native bytes`);
    await tap.checkNativeBytes(kind);
    console.log(`ai-sdk (${runtime}) over ${kind}: ${names.length} tools, read_text_file and read_media_file (${media.content[0].mimeType}, bytes intact), msgpack with native bytes`);
  } finally {
    await client.close();
  }
}
