import { z } from 'zod/v4';

/**
 * What the adapter needs of an MCP client: connect/close, listTools and `request`. The SDK's `Client`, v1's
 * or v2's, fits (structural, so the package loads no SDK).
 */
export interface AgentsMcpClient {
  connect(transport: never): Promise<void>;
  close(): Promise<void>;
  listTools(params?: { cursor?: string }): Promise<{ tools: AgentsMcpTool[]; nextCursor?: string }>;
  request(request: { method: string; params?: Record<string, unknown> }, resultSchema: z.ZodType, options?: { signal?: AbortSignal; timeout?: number }): Promise<unknown>;
}

/** A tool as tools/list describes it (the fields the OpenAI Agents SDK reads, and any others). */
export interface AgentsMcpTool {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
  [key: string]: unknown;
}

/** A tools/call result, as the OpenAI Agents SDK takes it (media as base64, as on any MCP client). */
export interface AgentsCallToolResult {
  content: Array<{ type: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface OpenAIAgentsMcpServerOptions {
  /** The server's name for the agent (tool names may be prefixed with it, traces show it). */
  name: string;
  /** An SDK Client, not yet connected; `connect()` connects it. */
  client: AgentsMcpClient;
  /** The transport to connect it with: StdioMsgpackClientTransport, HttpMsgpackClientTransport, or any. */
  transport: unknown;
  /** Keep the first tools/list until `invalidateToolsCache()` (as the SDK's own MCP servers). Default false. */
  cacheToolsList?: boolean;
  /** Milliseconds each tools/call may take (the SDK Client's request timeout). Default: the Client's. */
  timeout?: number;
  /** The other MCPServer members the Agents SDK reads (toolFilter, errorFunction, useStructuredContent, ...). */
  [option: string]: unknown;
}

/** The most pages one listTools() follows: a server whose cursors never end cannot hang an agent. */
const MAX_LIST_PAGES = 64;

/*
 * tools/call results are checked for their shape only (content blocks with a type). Media stay the base64
 * strings the Agents SDK passes on to the model; the SDK's own schema would only check them again.
 */
const CallToolResultShape = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});

/**
 * The `MCPServer` interface of `@openai/agents` over any MCP client transport, so an agent can use this
 * package's transports (MessagePack, native bytes on the wire) where the SDK's own `MCPServerStdio` and
 * `MCPServerStreamableHttp` build JSON transports of their own. Pass it in an agent's `mcpServers`.
 */
export class OpenAIAgentsMcpServer {
  readonly name: string;
  cacheToolsList: boolean;
  private readonly client: AgentsMcpClient;
  private readonly transport: unknown;
  private readonly timeout: number | undefined;
  private cachedTools: AgentsMcpTool[] | undefined;
  private connected = false;

  constructor(options: OpenAIAgentsMcpServerOptions) {
    const { name, client, transport, cacheToolsList, timeout, ...rest } = options;
    if (typeof name !== 'string' || name === '') throw new TypeError('OpenAIAgentsMcpServer: `name` must be a non-empty string');
    if (!client || typeof client.request !== 'function') throw new TypeError('OpenAIAgentsMcpServer: `client` must be an MCP SDK Client');
    if (!transport) throw new TypeError('OpenAIAgentsMcpServer: `transport` is required');
    // toolFilter, errorFunction, useStructuredContent, ...: read by the Agents SDK off the server object.
    Object.assign(this, rest);
    this.name = name;
    this.client = client;
    this.transport = transport;
    this.cacheToolsList = cacheToolsList ?? false;
    this.timeout = timeout;
  }

  async connect(): Promise<void> {
    await this.client.connect(this.transport as never);
    this.connected = true;
  }

  /** Closes the client, which closes the transport (and ends a stdio server's process). */
  async close(): Promise<void> {
    this.connected = false;
    this.cachedTools = undefined;
    await this.client.close();
  }

  /**
   * Every page of tools/list. Typed `any[]` as the Agents SDK's own MCP servers type theirs: its `MCPTool` type
   * requires `required` and `additionalProperties` in each input schema, which servers may leave out (the
   * SDK's tool conversion fills them in), so the tools are passed on as the server listed them.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the Agents SDK's own MCP servers type it so (above)
  async listTools(): Promise<any[]> {
    this.assertConnected();
    if (this.cacheToolsList && this.cachedTools) return this.cachedTools;
    const tools: AgentsMcpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await this.client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) {
        if (this.cacheToolsList) this.cachedTools = tools;
        return tools;
      }
    }
    throw new Error(`OpenAIAgentsMcpServer ${this.name}: tools/list still had more pages after ${MAX_LIST_PAGES}`);
  }

  async callTool(toolName: string, args: Record<string, unknown> | null, meta?: Record<string, unknown> | null, options?: { signal?: AbortSignal }): Promise<AgentsCallToolResult['content']> {
    return (await this.callToolResult(toolName, args, meta, options)).content;
  }

  async callToolResult(toolName: string, args: Record<string, unknown> | null, meta?: Record<string, unknown> | null, options?: { signal?: AbortSignal }): Promise<AgentsCallToolResult> {
    this.assertConnected();
    const params = { name: toolName, arguments: args ?? {}, ...(meta != null ? { _meta: meta } : {}) };
    const requestOptions = { ...(options?.signal ? { signal: options.signal } : {}), ...(this.timeout !== undefined ? { timeout: this.timeout } : {}) };
    return (await this.client.request({ method: 'tools/call', params }, CallToolResultShape, requestOptions)) as AgentsCallToolResult;
  }

  async invalidateToolsCache(): Promise<void> {
    this.cachedTools = undefined;
  }

  private assertConnected(): void {
    if (!this.connected) throw new Error(`OpenAIAgentsMcpServer ${this.name}: not connected (call connect() first, or let the agent run do it)`);
  }
}
