// SDK v1: where the round trip gets McpServer and Client, and how a tool declares its input.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export const generation = 'v1';
export { Client, McpServer };
export const textInput = { text: z.string() };
