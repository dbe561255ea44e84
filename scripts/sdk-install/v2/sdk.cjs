// SDK v2 through require().
const { Client } = require('@modelcontextprotocol/client');
const { McpServer } = require('@modelcontextprotocol/server');
const { z } = require('zod');

module.exports = { generation: 'v2', Client, McpServer, textInput: z.object({ text: z.string() }) };
