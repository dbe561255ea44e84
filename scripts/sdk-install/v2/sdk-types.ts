// SDK v2's classes, for check.ts.
export type { Client as SdkClient } from '@modelcontextprotocol/client';
export type { McpServer as SdkServer } from '@modelcontextprotocol/server';
