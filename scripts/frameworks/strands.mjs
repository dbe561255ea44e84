// Strands Agents TS (@strands-agents/sdk, McpClient({ transport })) on our stdio and HTTP client transports,
// against the media server: 14 tools listed as Strands tools, a text tool and read_media_file called through
// the client, the image's bytes checked (in the result and in the image block the agent's model would be
// given), and the wire checked to be MessagePack with native bytes.
import { McpClient } from '@strands-agents/sdk';
import { TOOL_COUNT, check, checkImage, imagePath, ourTransports, png, runtime, text, textPath } from './checks.mjs';

for (const [kind, { tap, transport }] of ourTransports()) {
  // Instrumentation off: it would only add OpenTelemetry spans, and nothing here exports them.
  const client = new McpClient({ transport, disableMcpInstrumentation: true, applicationName: 'strands-check' });
  try {
    await client.connect();
    const tools = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    check(tools.length === TOOL_COUNT && byName.has('read_media_file'), `${kind}: tools: ${[...byName.keys()]}`);

    const read = await client.callTool(byName.get('read_text_file'), { path: textPath });
    check(read?.content?.[0]?.text === text, `${kind}: read_text_file: ${JSON.stringify(read).slice(0, 200)}`);

    const media = await client.callTool(byName.get('read_media_file'), { path: imagePath });
    checkImage(media?.content?.[0], `${kind}: read_media_file`);
    // What the agent's model is given: the tool's own run, which maps MCP content to Strands blocks.
    const block = await toolResult(byName.get('read_media_file'), { path: imagePath });
    const image = block?.content?.[0];
    const bytes = image?.source?.bytes;
    check(image?.type === 'imageBlock' && bytes instanceof Uint8Array && Buffer.from(bytes).equals(png), `${kind}: the tool result's image block: ${JSON.stringify(block)?.slice(0, 200)}`);

    check(transport.wire === 'msgpack', `${kind}: wire is ${transport.wire}`);
    await tap.checkNativeBytes(kind);
    console.log(`strands (${runtime}) over ${kind}: ${tools.length} tools, read_text_file and read_media_file (${media.content[0].mimeType}, bytes intact), msgpack with native bytes`);
  } finally {
    await client.disconnect();
  }
}

/** Runs a Strands tool as the agent loop does (its stream's return value is the ToolResultBlock). */
async function toolResult(tool, input) {
  const stream = tool.stream({ toolUse: { toolUseId: 'call-1', name: tool.name, input }, agent: undefined, cancelSignal: new AbortController().signal });
  for (;;) {
    const step = await stream.next();
    if (step.done) return step.value;
  }
}
