// The AI SDK's MCP client (@ai-sdk/mcp, createMCPClient({ transport })) on our stdio and HTTP client
// transports, against the media server: 14 tools as AI SDK tools, a text tool and read_media_file executed
// as an agent would, the image's bytes checked (in the result and in what the model would be given), and the
// wire checked to be MessagePack with native bytes.
import { createMCPClient } from '@ai-sdk/mcp';
import { NATIVE_BYTES_CAPABILITY } from 'mcp-msgpack-transport';
import { TOOL_COUNT, check, checkImage, imagePath, ourTransports, png, runtime, text, textPath } from './checks.mjs';

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
    // What the model is given: the AI SDK's own conversion of the result, the image as a file part.
    const forModel = await tools.read_media_file.toModelOutput({ toolCallId: 'call-1', input: { path: imagePath }, output: media });
    const part = forModel?.value?.[0];
    check(part?.type === 'file' && part.mediaType === 'image/png' && Buffer.from(part.data?.data ?? '', 'base64').equals(png), `${kind}: toModelOutput: ${JSON.stringify(forModel)?.slice(0, 200)}`);

    check(transport.wire === 'msgpack', `${kind}: wire is ${transport.wire}`);
    check(client.initializeResult.capabilities?.experimental?.[NATIVE_BYTES_CAPABILITY] !== undefined, `${kind}: the server did not confirm native bytes`);
    await tap.checkNativeBytes(kind);
    console.log(`ai-sdk (${runtime}) over ${kind}: ${names.length} tools, read_text_file and read_media_file (${media.content[0].mimeType}, bytes intact), msgpack with native bytes`);
  } finally {
    await client.close();
  }
}
