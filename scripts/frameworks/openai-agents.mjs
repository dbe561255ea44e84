// @openai/agents with our client transports through OpenAIAgentsMcpServer (mcp-msgpack-transport/agents), an
// SDK v2 Client inside: the Agents SDK's own tool conversion (getAllMcpTools, as a run does before calling the
// model) and the resulting function tools invoked as the runner invokes them. No model call.
import { Agent, RunContext, getAllMcpTools } from '@openai/agents';
import { Client } from '@modelcontextprotocol/client';
import { OpenAIAgentsMcpServer } from 'mcp-msgpack-transport/agents';
import { TOOL_COUNT, check, checkImage, ourTransports, imagePath, runtime, text, textPath } from './checks.mjs';

for (const [kind, { tap, transport }] of ourTransports()) {
  const files = new OpenAIAgentsMcpServer({ name: 'files', client: new Client({ name: 'agents-check', version: '1.0.0' }), transport });
  const agent = new Agent({ name: 'librarian', instructions: 'Read files.', mcpServers: [files] });
  await files.connect();
  try {
    const runContext = new RunContext();
    const tools = await getAllMcpTools({ mcpServers: [files], runContext, agent });
    const names = tools.map((tool) => tool.name);
    check(names.length === TOOL_COUNT && names.includes('read_media_file'), `${kind}: tools: ${names}`);
    const invoke = (name, args) => tools.find((tool) => tool.name === name).invoke(runContext, JSON.stringify(args));

    const read = await invoke('read_text_file', { path: textPath });
    check(read?.type === 'text' && read.text === text, `${kind}: read_text_file: ${JSON.stringify(read)?.slice(0, 200)}`);

    const media = await invoke('read_media_file', { path: imagePath });
    checkImage(media, `${kind}: read_media_file`);

    check(transport.wire === 'msgpack', `${kind}: wire is ${transport.wire}`);
    await tap.checkNativeBytes(kind);
    console.log(`openai-agents (${runtime}) over ${kind}: ${names.length} function tools, read_text_file and read_media_file (bytes intact), msgpack with native bytes`);
  } finally {
    await files.close();
  }
}
