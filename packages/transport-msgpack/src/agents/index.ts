// mcp-msgpack-transport/agents: adapters for agent frameworks that take their own server object instead of a
// transport. Loads no SDK and no framework: the shapes are structural.
export { OpenAIAgentsMcpServer, type OpenAIAgentsMcpServerOptions, type AgentsMcpClient, type AgentsMcpTool, type AgentsCallToolResult } from './openai-agents.js';
