"""The client side: transports in place of the SDK's `mcp.client.stdio` and `mcp.client.streamable_http`, and
`call_tool_native`. FastMCP's transport is `mcp_msgpack.client.fastmcp_transport` (it needs `fastmcp`)."""

from .native_call import call_tool_native
from .stdio import stdio_client
from .streamable_http import MsgpackStreamableHTTPTransport, streamable_http_client

__all__ = ["MsgpackStreamableHTTPTransport", "call_tool_native", "stdio_client", "streamable_http_client"]
