// SDK v1's classes, for check.ts.
export type { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
export type { McpServer as SdkServer } from '@modelcontextprotocol/sdk/server/mcp.js';
