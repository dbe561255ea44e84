// SDK v2: where the round trip gets McpServer and Client, and how a tool declares its input.
import { Client } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const generation = 'v2';
export { Client, McpServer };
export const textInput = z.object({ text: z.string() });
