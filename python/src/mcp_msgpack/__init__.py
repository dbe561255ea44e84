"""msgpack-v1 transports for the official MCP Python SDK."""
