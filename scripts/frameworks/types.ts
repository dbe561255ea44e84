// Compiled, not run (`tsc -p .` in the framework project, strict): our transports and OpenAIAgentsMcpServer
// fit the frameworks' own types where a TypeScript user passes them.
import { createMCPClient } from '@ai-sdk/mcp';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Agent, type MCPServer } from '@openai/agents';
import { HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { OpenAIAgentsMcpServer } from 'mcp-msgpack-transport/agents';

const stdio = () => new StdioMsgpackClientTransport({ command: 'npx', args: ['mcp-filesystem-media-server', '.'], nativeBytes: true });
const http = () => new HttpMsgpackClientTransport(new URL('http://127.0.0.1:1/mcp'), { nativeBytes: true });

export async function aiSdk() {
  return [await createMCPClient({ transport: stdio() }), await createMCPClient({ transport: http() })];
}

export function openAiAgents(): Agent {
  const v1: MCPServer = new OpenAIAgentsMcpServer({ name: 'v1', client: new ClientV1({ name: 'a', version: '1' }), transport: stdio() });
  const v2: MCPServer = new OpenAIAgentsMcpServer({ name: 'v2', client: new ClientV2({ name: 'a', version: '1' }), transport: http(), cacheToolsList: true });
  return new Agent({ name: 'typed', mcpServers: [v1, v2] });
}

export async function langChain() {
  const client = new ClientV1({ name: 'a', version: '1' });
  await client.connect(http());
  return loadMcpTools('files', client);
}
