// SDK v1 through require().
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { z } = require('zod');

module.exports = { generation: 'v1', Client, McpServer, textInput: { text: z.string() } };
